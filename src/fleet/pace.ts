import type { Clock } from "../core/clock.js";
import type { Pace } from "../engine/index.js";
import type { FleetStore, PaceRow, PaceState, Successes } from "../store/index.js";

/**
 * One pace for a fleet of workers on one gateway account: turns come from the account's pace
 * row (the store's `fleet.pace`), spaced 1/rate apart by the database clock across every
 * process and host; 429s, Retry-After and successes move that row, as `SubmitPace` moves its
 * fields. Successes ride on the next turn booked, or go on their own when no turn is asked for.
 */

/**
 * Turns a process holds reserved but not yet given: what a 429 can still find booked. Those
 * asked for while a booking is under way are booked together, in one statement.
 */
export const OUTSTANDING = 4;

/**
 * How late a turn may still be taken, at the least: a whole turn late it would land in the
 * next one's place, but at a fast pace a turn is shorter than a timer's tick, and a few
 * milliseconds late crowd a second by under the margin the pace keeps under a limit (1 %).
 */
const LATE_MS = 4;

/** A turn booked and not yet given. */
interface Booked {
  /** When it is, on this host's clock (ms). */
  at: number;
  epoch: number;
  /** `#booking` when it was booked: a 429 here since makes it stale. */
  booking: number;
  /** `#pausedUntil` when it was booked: a pause since may cover it. */
  pausedBefore: number;
  /** How late it may still be taken (ms). */
  lateMs: number;
}

type Update =
  | { kind: "success"; count: number; announced: number | undefined }
  | { kind: "queried"; count: number }
  | {
      kind: "limited";
      epoch: number;
      retryAfterMs: number | undefined;
      announced: number | undefined;
      query: boolean;
    };

export class FleetPace implements Pace {
  #rate: number;
  /** Whether queries take turns: the row learned that the gateway's limit counts them. */
  #queriesCount: boolean;
  /** The epoch of the last turn given: a 429 cuts the rate only if no cut came since. */
  #turnEpoch: number;
  /** The newest epoch this process has heard of: a turn booked at an older one is booked again. */
  #epoch: number;
  /** Bumped by a 429 here: a turn booked before it is booked again. */
  #booking = 0;
  /** Local clock ms before which no turn is given (Retry-After, here or from the row). */
  #pausedUntil = 0;
  #outstanding = 0;
  #waiting: (() => void)[] = [];
  /** Turns booked and not yet given, earliest first. */
  #booked: Booked[] = [];
  /** Acquirers with a place and no turn: the next booking asks for this many. */
  #asking = 0;
  #bookingNow: Promise<void> | undefined;
  /** Row updates not yet sent, sent one at a time in order; adjacent successes merge. */
  #updates: Update[] = [];
  /** Successes not reported yet: the next turn booked carries them. */
  #successes: Successes | undefined;
  #pumping: Promise<void> | undefined;
  #unwatch: () => void = () => {};

  /** Use `openFleetPace`, or `FleetPace.open` with another port. */
  private constructor(
    private readonly row: PaceRow,
    private readonly clock: Clock,
    /** The gateway account (its base URL; never the key). */
    readonly account: string,
    opened: PaceState,
  ) {
    this.#rate = opened.rate;
    this.#queriesCount = opened.queriesCount;
    this.#turnEpoch = opened.epoch;
    this.#epoch = opened.epoch;
    this.#learn(opened);
  }

  /** Opens the pace of `account` on `row`; `ceiling` is the manifest's submit rate per second. */
  static async open(
    row: PaceRow,
    clock: Clock,
    account: string,
    ceiling: number,
  ): Promise<FleetPace> {
    const pace = new FleetPace(row, clock, account, await row.open(account, ceiling));
    // A 429 another process meets is heard at once: turns booked before it are booked again.
    pace.#unwatch = await row.watch(account, (state) => pace.#learn(state));
    return pace;
  }

  /** Submits per second, as the row last reported it. */
  get rate(): number {
    return this.#rate;
  }

  /** Waits for the next submit's turn: a local place among OUTSTANDING, then the row's slot. */
  async acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    await this.#enter(signal);
    try {
      for (;;) {
        const turn = await this.#nextTurn();
        const wait = turn.at - this.clock.now();
        if (wait > 0) await this.clock.sleep(wait, signal);
        // A pause came while this turn waited: its slot lies inside it, so book one after it.
        if (this.#pausedUntil > turn.pausedBefore && this.#pausedUntil > this.clock.now()) continue;
        // A 429 came, here or to another process, since this turn was booked at the old rate.
        if (this.#stale(turn)) continue;
        // Woken a whole turn late (a busy host): sent now, it would land in the
        // next turn's place and crowd a second past the limit. Let it go; book another.
        if (this.clock.now() - turn.at > turn.lateMs) continue;
        this.#turnEpoch = turn.epoch;
        return;
      }
    } finally {
      this.#leave();
    }
  }

  /** The earliest turn booked and still good, or one of a booking for everyone asking. */
  async #nextTurn(): Promise<Booked> {
    for (;;) {
      for (let turn = this.#booked.shift(); turn; turn = this.#booked.shift())
        if (!this.#stale(turn)) return turn;
      this.#asking += 1;
      try {
        this.#bookingNow ??= this.#book().finally(() => {
          this.#bookingNow = undefined;
        });
        await this.#bookingNow;
      } finally {
        this.#asking -= 1;
      }
    }
  }

  /** Books a turn for each acquirer asking, in one call that carries the successes held. */
  async #book(): Promise<void> {
    const pausedBefore = this.#pausedUntil;
    const booking = this.#booking;
    const succeeded = this.#successes;
    this.#successes = undefined;
    const turn = await this.row.reserve(this.account, succeeded, this.#asking);
    // The slot on this host's clock: the row told how long from its now.
    const first = this.clock.now() + turn.waitMs;
    this.#rate = turn.rate;
    this.#epoch = Math.max(this.#epoch, turn.epoch);
    const lateMs = Math.max(1000 / turn.rate, LATE_MS);
    for (let i = 0; i < turn.turns; i++)
      this.#booked.push({
        at: first + i * turn.spacingMs,
        epoch: turn.epoch,
        booking,
        pausedBefore,
        lateMs,
      });
  }

  #stale(turn: Booked): boolean {
    return turn.booking !== this.#booking || turn.epoch < this.#epoch;
  }

  /** Whether queries take turns: the gateway's limit counts them. */
  get queriesCount(): boolean {
    return this.#queriesCount;
  }

  /**
   * Waits for a query's turn: at once, unless the gateway's limit counts queries (the row
   * learns it, from 429s any process meets). A query without a turn is told to the row: it is
   * a call the gateway let through.
   */
  async query(signal?: AbortSignal): Promise<void> {
    if (this.#queriesCount) await this.acquire(signal);
    else this.#merge({ kind: "queried", count: 1 });
  }

  /** A submit went through; `announced` is the gateway's stated limit, if any. Never throws. */
  succeeded(announced?: number): void {
    const held = this.#successes;
    this.#successes = { count: (held?.count ?? 0) + 1, announced: announced ?? held?.announced };
    if (this.#outstanding === 0) this.#reportSuccesses();
  }

  /** The gateway answered 429 to a generating call, or (`query`) to a query. Never throws. */
  rateLimited(retryAfterMs: number | undefined, announced?: number, query?: boolean): void {
    // The next query here waits for a turn at once, before the row answers.
    if (query === true) this.#queriesCount = true;
    // Held here at once, so a turn of this process waking before the row answers waits too.
    this.#pause(retryAfterMs ?? 1000 / this.#rate);
    this.#booking += 1;
    // The 429 ends the run of successes they would have counted in.
    this.#successes = undefined;
    this.#push({
      kind: "limited",
      epoch: this.#turnEpoch,
      retryAfterMs,
      announced,
      query: query === true,
    });
  }

  /** Resolves once every update sent so far has been answered or dropped (tests, shutdown). */
  async flushed(): Promise<void> {
    this.#reportSuccesses();
    while (this.#pumping !== undefined) await this.#pumping;
  }

  /** Stops hearing the fleet's 429s; sends what is held. */
  async close(): Promise<void> {
    this.#unwatch();
    await this.flushed();
  }

  /** Sends the successes held, when no turn is being booked to carry them. */
  #reportSuccesses(): void {
    const held = this.#successes;
    if (held === undefined) return;
    this.#successes = undefined;
    this.#merge({ kind: "success", ...held });
  }

  /** Sends `update`, or adds it to the one of its kind last in line. */
  #merge(update: Extract<Update, { kind: "success" | "queried" }>): void {
    const last = this.#updates.at(-1);
    if (last?.kind === "success" && update.kind === "success") {
      last.count += update.count;
      last.announced = update.announced ?? last.announced;
    } else if (last?.kind === "queried" && update.kind === "queried") last.count += update.count;
    else this.#push(update);
  }

  #push(update: Update): void {
    this.#updates.push(update);
    // Cleared in `finally`, after the assignment, even when every update fails at once.
    this.#pumping ??= this.#pump().finally(() => {
      this.#pumping = undefined;
    });
  }

  async #pump(): Promise<void> {
    for (let update = this.#updates.shift(); update; update = this.#updates.shift()) {
      try {
        this.#learn(await this.#send(update));
      } catch {
        // A lost update is a lost courtesy: the next turn still comes from the row.
      }
    }
  }

  #send(update: Update): Promise<PaceState> {
    switch (update.kind) {
      case "success":
        return this.row.succeed(this.account, update.count, update.announced);
      case "queried":
        return this.row.queried(this.account, update.count);
      case "limited":
        return this.row.limit(
          this.account,
          update.epoch,
          update.retryAfterMs,
          update.announced,
          update.query,
        );
      default: {
        const never: never = update;
        throw new Error(`unknown pace update ${String(never)}`);
      }
    }
  }

  #learn(state: PaceState): void {
    this.#rate = state.rate;
    this.#queriesCount ||= state.queriesCount;
    this.#epoch = Math.max(this.#epoch, state.epoch);
    if (state.pausedMs > 0) this.#pause(state.pausedMs);
  }

  #pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, this.clock.now() + ms);
  }

  async #enter(signal?: AbortSignal): Promise<void> {
    if (this.#outstanding < OUTSTANDING) {
      this.#outstanding += 1;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.#waiting = this.#waiting.filter((other) => other !== enter);
        reject(signal?.reason);
      };
      const enter = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      this.#waiting.push(enter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  // The place passes straight to the next waiter, so the count never dips in between.
  #leave(): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next();
    else if (--this.#outstanding === 0) this.#reportSuccesses();
  }
}

/**
 * The fleet pace of `account` on a PostgreSQL store: `ceiling` is the manifest's submit rate
 * per second; a rate learned earlier (the row's) is kept if it is lower.
 */
export function openFleetPace(
  store: { readonly fleet: Pick<FleetStore, "pace"> },
  clock: Clock,
  account: string,
  ceiling: number,
): Promise<FleetPace> {
  return FleetPace.open(store.fleet.pace, clock, account, ceiling);
}
