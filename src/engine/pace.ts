import type { Clock } from "../core/clock.js";

/**
 * The pace the calls under one gateway key keep: a turn per generating call (a media submit, a
 * text call), slower after a 429, back up after successes. A query (a poll, single or batch)
 * takes a turn too once the gateway has answered one with 429: its limit counts queries, and
 * so does the pace. The contract does not say what a limit counts, so the pace learns it;
 * downloads never take a turn. `SubmitPace` is one process's; a fleet shares one through its
 * store.
 */
export interface Pace {
  /** Calls per second now. */
  readonly rate: number;
  /** Whether queries take turns: the gateway's limit counts them. */
  readonly queriesCount: boolean;
  /** Waits for the next generating call's turn. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Waits for a query's turn: at once, unless the gateway's limit counts queries. */
  query(signal?: AbortSignal): Promise<void>;
  /** A submit went through; `announced` is the gateway's stated limit, if any. */
  succeeded(announced?: number): void;
  /** The gateway answered 429 to a generating call, or (`query`) to a query. */
  rateLimited(retryAfterMs: number | undefined, announced?: number, query?: boolean): void;
}

/**
 * Whether the gateway's limit counts queries. Learned from a 429 to a query, or to a generating
 * call sent within the limit (the announced one, or one a 429 told) while queries were going:
 * the generating calls alone did not reach it.
 */
export class QueryRule {
  #counted = false;
  #lastQueryAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly clock: Clock) {}

  get counted(): boolean {
    return this.#counted;
  }

  /** A query is about to leave. */
  queried(): void {
    this.#lastQueryAt = this.clock.now();
  }

  /** A 429 came: to a query (`query`), or to a generating call sent `withinLimit`. */
  learn(query: boolean | undefined, withinLimit: boolean): void {
    const querying = this.clock.now() - this.#lastQueryAt < 1000;
    if (query === true || (withinLimit && querying)) this.#counted = true;
  }
}

/** How long a limit learned from a 429 holds the pace under it before the pace probes again. */
export const LIMIT_MEMORY_MS = 60_000;

/**
 * Paces calls: one every 1/rate seconds, no bursts. On a 429 it honours Retry-After and
 * halves the rate, once per burst: the 429s of calls sent before the cut say nothing about
 * the new rate, and turns booked before a 429 are booked again after it. It never halves below
 * half the rate it last sustained (20 successes in a row), so one bad spell cannot collapse it.
 * When the gateway announces its limit (RateLimit-Policy) it settles just under it; when it
 * does not, a 429 that came while turns went out back to back tells the limit: the calls that
 * went through since the 429 before it (the gateway's bucket was empty at both), queries
 * included, over the time between them when that is a second or more, and the pace goes just
 * under it at once; else the rate itself, and the pace halves. Never under the floor. The pace
 * stays under a told limit for a minute (LIMIT_MEMORY_MS), so it does not probe the limit again
 * on every climb. After a run of successes it climbs back toward the manifest's rate (see
 * `climbed`).
 */
export class SubmitPace implements Pace {
  readonly #queries: QueryRule;
  #rate: number;
  #ceiling: number;
  #next = 0;
  /** Bumped by every 429: a turn booked before it is booked again. */
  #booking = 0;
  #lastTurnAt = Number.NEGATIVE_INFINITY;
  /** Turns given in a row, each within 1.5 spacings of the one before. */
  #inARow = 0;
  /** The limit a 429 told, and until when the pace stays under it. */
  #limited: { rate: number; until: number } | undefined;
  /** When the last 429 came, and the calls (turns and queries) made since. */
  #lastLimitedAt: number | undefined;
  #callsSince = 0;
  #successes = 0;
  /** The rate at which 20 submits in a row last went through; 0 before that. */
  #sustained = 0;
  /** Whether a turn was given since the last cut: only then can a 429 speak for the new rate. */
  #sentSinceCut = true;

  /** `ceiling`: the manifest's submit_rate per second; `start`: where to begin (a learned rate). */
  constructor(
    private readonly clock: Clock,
    ceiling: number,
    start = ceiling,
  ) {
    this.#queries = new QueryRule(clock);
    this.#ceiling = ceiling;
    this.#rate = Math.min(ceiling, start);
  }

  /** Calls per second now. */
  get rate(): number {
    return this.#rate;
  }

  /** Whether queries take turns: the gateway's limit counts them. */
  get queriesCount(): boolean {
    return this.#queries.counted;
  }

  /** Waits for the next generating call's turn. */
  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const booking = this.#booking;
      const now = this.clock.now();
      const at = Math.max(now, this.#next);
      this.#next = at + 1000 / this.#rate;
      if (at > now) await this.clock.sleep(at - now, signal);
      if (booking === this.#booking) break;
    }
    const now = this.clock.now();
    const backToBack = now - this.#lastTurnAt <= 1500 / this.#rate;
    this.#inARow = backToBack ? this.#inARow + 1 : 1;
    this.#lastTurnAt = now;
    this.#callsSince += 1;
    this.#sentSinceCut = true;
  }

  /** Waits for a query's turn: at once, unless the gateway's limit counts queries. */
  async query(signal?: AbortSignal): Promise<void> {
    this.#queries.queried();
    if (this.#queries.counted) await this.acquire(signal);
    else this.#callsSince += 1;
  }

  /** A submit went through; `announced` is the gateway's stated limit, if any. */
  succeeded(announced?: number): void {
    if (announced !== undefined) this.#cap(announced);
    this.#successes += 1;
    if (this.#successes >= 20) {
      this.#sustained = this.#rate;
      this.#rate = climbed(this.#rate, this.#top(), this.#ceiling * 0.05, this.#told());
      this.#successes = 0;
    }
  }

  /** The gateway answered 429 to a generating call, or (`query`) to a query. */
  rateLimited(retryAfterMs: number | undefined, announced?: number, query?: boolean): void {
    const now = this.clock.now();
    const limit = announced ?? this.#limitTold(now);
    this.#queries.learn(query, limit !== undefined && this.#rate <= limit * UNDER_LIMIT * 1.001);
    if (announced !== undefined) this.#cap(announced);
    else if (this.#sentSinceCut) {
      const floor = Math.max(this.#ceiling / 64, this.#sustained / 2);
      const halved = Math.max(Math.min(floor, this.#rate), this.#rate / 2);
      // Half a second's turns went out back to back: the gateway's limit is what got through.
      const seen = this.#inARow >= Math.max(2, this.#rate / 2) ? this.#limitSeen(now) : undefined;
      if (seen !== undefined)
        this.#limited = { rate: Math.max(floor, seen.rate), until: now + LIMIT_MEMORY_MS };
      // What got through between two 429s is the limit: the pace goes just under it at once.
      this.#rate = seen?.measured ? this.#top() : Math.min(this.#top(), halved);
      this.#sentSinceCut = false;
    }
    this.#lastLimitedAt = now;
    this.#callsSince = 0;
    this.#successes = 0;
    this.#booking += 1;
    const wait = retryAfterMs ?? 1000 / this.#rate;
    this.#next = Math.max(this.#lastTurnAt + 1000 / this.#rate, now + wait);
  }

  /**
   * Calls per second the gateway let through since the 429 before this one (less this one's
   * call), when that came a second to a minute (LIMIT_MEMORY_MS) ago; else the rate now.
   * Never above the rate.
   */
  #limitSeen(now: number): { rate: number; measured: boolean } {
    const since = this.#lastLimitedAt;
    if (since === undefined || now - since >= LIMIT_MEMORY_MS || now - since < 1000)
      return { rate: this.#rate, measured: false };
    const through = (Math.max(0, this.#callsSince - 1) * 1000) / (now - since);
    return { rate: Math.min(this.#rate, through), measured: true };
  }

  /** Whether a limit a 429 told holds the pace now. */
  #told(): boolean {
    return this.#limitTold(this.clock.now()) !== undefined;
  }

  /** The limit a 429 told, while the pace stays under it. */
  #limitTold(now: number): number | undefined {
    const limited = this.#limited;
    return limited === undefined || limited.until <= now ? undefined : limited.rate;
  }

  /** The highest rate the pace may climb to now. */
  #top(): number {
    const told = this.#limitTold(this.clock.now());
    return told === undefined ? this.#ceiling : Math.min(this.#ceiling, told * UNDER_LIMIT);
  }

  // Just under the announced limit, so the gateway's bucket never runs dry.
  #cap(announced: number): void {
    this.#ceiling = Math.min(this.#ceiling, announced * UNDER_LIMIT);
    this.#rate = Math.min(this.#rate, this.#ceiling);
  }
}

/** How far under a known limit the pace settles (a fleet's row settles closer: `PaceRow.underLimit`). */
export const UNDER_LIMIT = 0.97;

/**
 * The rate after a run of 20 successes: `step` (5 % of the ceiling) higher, and under a limit
 * a 429 told, at least halfway to `top`: the rate the gateway refused is known, so the pace
 * closes in on just under it in a few runs instead of creeping up 5 % at a time.
 */
export function climbed(rate: number, top: number, step: number, told: boolean): number {
  const halfway = told ? (top - rate) / 2 : 0;
  return Math.min(top, rate + Math.max(step, halfway));
}
