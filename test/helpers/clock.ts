import type { Clock } from "../../src/core/clock.js";

/** A clock that moves only when told to: tests pass time without sleeping. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start = Date.UTC(2026, 10, 22, 6, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const sleeper = { until: this.#now + ms, resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener(
        "abort",
        () => {
          this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** When the next sleeper wakes; undefined when nobody sleeps. */
  get nextWake(): number | undefined {
    return this.#sleepers.length === 0
      ? undefined
      : Math.min(...this.#sleepers.map((sleeper) => sleeper.until));
  }

  /** Moves time on by `ms`, waking every sleeper that is due. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((sleeper) => sleeper.until <= this.#now);
    this.#sleepers = this.#sleepers.filter((sleeper) => sleeper.until > this.#now);
    for (const sleeper of due) sleeper.resolve();
  }
}

/** Lets the code under test react to what just happened (promise callbacks, I/O callbacks). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Moves a manual clock on to `until`, stopping at each sleeper's wake time on the way, so
 * everything that waits for a time wakes exactly at it.
 */
export async function advanceTo(clock: ManualClock, until: number): Promise<void> {
  await settle();
  for (;;) {
    const wake = clock.nextWake;
    if (wake === undefined || wake > until) break;
    clock.advance(Math.max(0, wake - clock.now()));
    await settle();
  }
  if (clock.now() < until) clock.advance(until - clock.now());
  await settle();
}

/** A view of a clock that a test can kill: after `die()` no sleep of its user ever ends. */
export interface MortalClock extends Clock {
  die(): void;
}

/**
 * `clock` as a process sees it until it dies: then every sleep, under way or new, never
 * resolves, so code on it stops where it waits, as a killed process would, while time goes on
 * for everything else on the same clock.
 */
export function mortal(clock: Clock): MortalClock {
  let dead = false;
  const never = new Promise<void>(() => {});
  return {
    now: () => clock.now(),
    sleep: async (ms, signal) => {
      if (dead) return never;
      await clock.sleep(ms, signal);
      if (dead) return never;
    },
    die() {
      dead = true;
    },
  };
}
