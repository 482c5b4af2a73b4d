import type { Clock } from "../core/clock.js";

/**
 * Paces submits: one every 1/rate seconds, no bursts. On a 429 it honours Retry-After and
 * halves the rate; when the gateway announces its limit (RateLimit-Policy) it settles just
 * under it; after a run of successes it climbs back additively toward the manifest's rate.
 */
export class SubmitPace {
  #rate: number;
  #ceiling: number;
  #next = 0;
  #successes = 0;

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
  }

  /** A submit went through; `announced` is the gateway's stated limit, if any. */
  succeeded(announced?: number): void {
    if (announced !== undefined) this.#cap(announced);
    this.#successes += 1;
    if (this.#successes >= 20 && this.#rate < this.#ceiling) {
      this.#rate = Math.min(this.#ceiling, this.#rate + this.#ceiling * 0.05);
      this.#successes = 0;
    }
  }

  /** The gateway answered 429. */
  rateLimited(retryAfterMs: number | undefined, announced?: number): void {
    if (announced !== undefined) this.#cap(announced);
    else this.#rate = Math.max(this.#ceiling / 64, this.#rate / 2);
    this.#successes = 0;
    this.#next = Math.max(this.#next, this.clock.now() + (retryAfterMs ?? 1000 / this.#rate));
  }

  // Just under the announced limit, so the gateway's bucket never runs dry.
  #cap(announced: number): void {
    this.#ceiling = Math.min(this.#ceiling, announced * 0.97);
    this.#rate = Math.min(this.#rate, this.#ceiling);
  }
}
