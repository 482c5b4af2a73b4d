import type { GatewayClient } from "../../src/gateway/index.js";
import { settle } from "./clock.js";

/**
 * The work a virtual-time rig waits for before it moves the clock: gateway calls and checks
 * under way. A call waiting for its pace turn is not under way: only the clock can end that
 * wait, so the rig must move it.
 */
export class UnderWay {
  readonly #work = new Set<Promise<unknown>>();
  /** Resolved when a call starts waiting for a turn: a wait for the rest must end then. */
  #paused: { promise: Promise<void>; resolve: () => void } = deferred();

  /** Tracks `work` until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#work.add(work);
    const forget = () => this.#work.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** The client, each call it has under way tracked, the pace turns its queries wait for not. */
  client(client: GatewayClient): GatewayClient {
    return new Proxy(client, {
      get: (target, property) => {
        // The client keeps private fields: its methods run on the client itself.
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          let call: Promise<unknown> | undefined;
          let waiting = false;
          const turned = args.map((arg) =>
            typeof arg !== "function" || !QUERIES.has(property)
              ? arg
              : async () => {
                  waiting = true;
                  if (call !== undefined) this.#work.delete(call);
                  this.#paused.resolve();
                  try {
                    await (arg as () => Promise<void>)();
                  } finally {
                    waiting = false;
                    if (call !== undefined) this.#work.add(call);
                  }
                },
          );
          const result: unknown = value.apply(target, turned);
          if (!(result instanceof Promise)) return result;
          call = result;
          if (!waiting) this.#work.add(result);
          const forget = () => this.#work.delete(result);
          result.then(forget, forget);
          return result;
        };
      },
    });
  }

  /**
   * `fn` runs while `work` waits for it, not counted as under way meanwhile: what `fn` waits
   * for is its own (a judge's call waits for its pace turn and retries on the clock).
   */
  async aside<T>(work: Promise<unknown> | undefined, fn: () => Promise<T>): Promise<T> {
    if (work !== undefined) this.#work.delete(work);
    this.#paused.resolve();
    try {
      return await fn();
    } finally {
      if (work !== undefined) this.#work.add(work);
    }
  }

  /** Waits until nothing is under way and the code under test has reacted to the last. */
  async quiet(): Promise<void> {
    for (;;) {
      await settle();
      if (this.#work.size === 0) {
        await settle();
        if (this.#work.size === 0) return;
      }
      this.#paused = deferred();
      await Promise.race([Promise.allSettled([...this.#work]), this.#paused.promise]);
    }
  }
}

/** The client's methods that take a pace turn (a function) among their arguments. */
const QUERIES = new Set<string | symbol>(["getTask", "getTasks"]);

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
