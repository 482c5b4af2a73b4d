/**
 * A worker's timings, all from its lease. A silent worker is dead after `leaseMs`; it stops
 * starting submits after `fenceMs` without a heartbeat the store heard; a submit request
 * times out well within the rest, so no request outlives its claim.
 */
export interface FleetTiming {
  leaseMs: number;
  heartbeatMs: number;
  fenceMs: number;
  reapEveryMs: number;
}

/** The default lease: a host silent this long is dead. */
export const DEFAULT_LEASE_MS = 90_000;

export function fleetTiming(leaseMs = DEFAULT_LEASE_MS): FleetTiming {
  return {
    leaseMs,
    heartbeatMs: Math.max(200, leaseMs / 18),
    fenceMs: (leaseMs * 2) / 9,
    reapEveryMs: Math.max(500, leaseMs / 9),
  };
}
