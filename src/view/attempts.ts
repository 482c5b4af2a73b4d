/**
 * Failed token attempts per client address: after `limit` within `windowMs`, the address is
 * refused (429) for `blockMs`, its token not even checked, so guessing cannot go on. Time is
 * passed in; the table is bounded, forgetting quiet addresses first.
 */

export interface AttemptLimits {
  /** Failures allowed within the window (default 10). */
  limit: number;
  /** The window failures are counted in, ms (default a minute). */
  windowMs: number;
  /** How long an address is refused once over the limit, ms (default a minute). */
  blockMs: number;
}

export const ATTEMPT_LIMITS: AttemptLimits = { limit: 10, windowMs: 60_000, blockMs: 60_000 };

/** The addresses kept at most: past it, those whose failures are all old are forgotten. */
const KEPT = 10_000;

interface Failures {
  /** When each recent failure happened, oldest first. */
  at: number[];
  blockedUntil: number;
}

export class FailedAttempts {
  private readonly byAddress = new Map<string, Failures>();

  constructor(private readonly limits: AttemptLimits = ATTEMPT_LIMITS) {}

  /** Whether `address` is refused at `now`. */
  blocked(address: string, now: number): boolean {
    return (this.byAddress.get(address)?.blockedUntil ?? 0) > now;
  }

  /** Counts a failure of `address` at `now`; true when it is blocked from now on. */
  failed(address: string, now: number): boolean {
    const { limit, windowMs, blockMs } = this.limits;
    const failures = this.byAddress.get(address) ?? { at: [], blockedUntil: 0 };
    failures.at = failures.at.filter((at) => at > now - windowMs);
    failures.at.push(now);
    if (failures.at.length >= limit) {
      failures.blockedUntil = now + blockMs;
      failures.at = [];
    }
    this.byAddress.delete(address);
    this.byAddress.set(address, failures);
    if (this.byAddress.size > KEPT) this.forget(now);
    return failures.blockedUntil > now;
  }

  /** Forgets addresses neither blocked nor failing lately; else the quietest (Map order). */
  private forget(now: number): void {
    for (const [address, failures] of this.byAddress) {
      const recent = failures.at.some((at) => at > now - this.limits.windowMs);
      if (!recent && failures.blockedUntil <= now) this.byAddress.delete(address);
    }
    for (const address of this.byAddress.keys()) {
      if (this.byAddress.size <= KEPT) break;
      this.byAddress.delete(address);
    }
  }
}
