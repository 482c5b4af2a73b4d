/** A token bucket: `perSecond` refilled continuously up to `burst`; time is passed in. */
export class TokenBucket {
  #tokens: number;
  #updatedAt: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.#tokens = burst;
    this.#updatedAt = now;
  }

  /** Takes one token: 0 when granted, else the milliseconds until one is available. */
  take(now: number): number {
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed * this.perSecond) / 1000);
    // Times are arrivals, handled a little out of order: never wind the bucket back.
    this.#updatedAt = Math.max(this.#updatedAt, now);
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) * 1000) / this.perSecond);
  }
}
