import type { Clock } from "../core/clock.js";

/**
 * The pace submits keep: a turn per submit, slower after a 429, back up after successes.
 * `SubmitPace` is one process's; a fleet shares one through its store.
 */
export interface Pace {
  /** Submits per second now. */
  readonly rate: number;
  /** Waits for the next submit's turn. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** A submit went through; `announced` is the gateway's stated limit, if any. */
  succeeded(announced?: number): void;
  /** The gateway answered 429. */
  rateLimited(retryAfterMs: number | undefined, announced?: number): void;
}

/**
 * Paces submits: one every 1/rate seconds, no bursts. On a 429 it honours Retry-After and
 * halves the rate, once per burst: the 429s of submits sent before the cut say nothing about
 * the new rate. It never halves below half the rate it last sustained (20 successes in a row),
 * so one bad spell cannot collapse it. When the gateway announces its limit (RateLimit-Policy)
 * it settles just under it; after a run of successes it climbs back toward the manifest's rate.
 */
export class SubmitPace implements Pace {
  #rate: number;
  #ceiling: number;
  #next = 0;
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
    this.#ceiling = ceiling;
    this.#rate = Math.min(ceiling, start);
  }

  /** Submits per second now. */
  get rate(): number {
    return this.#rate;
  }

  /** Waits for the next submit's turn. */
  async acquire(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const at = Math.max(now, this.#next);
    this.#next = at + 1000 / this.#rate;
    if (at > now) await this.clock.sleep(at - now, signal);
    this.#sentSinceCut = true;
  }

  /** A submit went through; `announced` is the gateway's stated limit, if any. */
  succeeded(announced?: number): void {
    if (announced !== undefined) this.#cap(announced);
    this.#successes += 1;
    if (this.#successes >= 20) {
      this.#sustained = this.#rate;
      this.#rate = Math.min(this.#ceiling, this.#rate + this.#ceiling * 0.05);
      this.#successes = 0;
    }
  }

  /** The gateway answered 429. */
  rateLimited(retryAfterMs: number | undefined, announced?: number): void {
    if (announced !== undefined) this.#cap(announced);
    else if (this.#sentSinceCut) {
      const floor = Math.max(this.#ceiling / 64, this.#sustained / 2);
      this.#rate = Math.max(Math.min(floor, this.#rate), this.#rate / 2);
      this.#sentSinceCut = false;
    }
    this.#successes = 0;
    this.#next = Math.max(this.#next, this.clock.now() + (retryAfterMs ?? 1000 / this.#rate));
  }

  // Just under the announced limit, so the gateway's bucket never runs dry.
  #cap(announced: number): void {
    this.#ceiling = Math.min(this.#ceiling, announced * 0.97);
    this.#rate = Math.min(this.#rate, this.#ceiling);
  }
}
