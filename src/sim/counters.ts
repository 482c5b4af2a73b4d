/** What the simulator has served, for tests and benchmarks (`GET /__sim/counters`). */
export interface SimCounters {
  /** Every HTTP request, of any kind. */
  requests: number;
  submits: {
    /** Submit requests that reached validation. */
    received: number;
    /** Tasks created. */
    accepted: number;
    /** Accepted submits per request hash (sha256 of the path and canonical body). */
    byRequest: Record<string, number>;
    /** Request hashes accepted more than once. */
    repeated: number;
    /** The most submits accepted within any one second (sliding), to check a fleet's pace. */
    busiest_second: number;
  };
  tasks: { created: number; planned_failures: number };
  queries: { single: number; batch: number; batch_tasks: number };
  downloads: { served: number; bytes: number; truncated: number; expired: number };
  text: { calls: number; streams: number };
  /** Error answers by HTTP status, plus `reset` (connection destroyed) and `lost_response`. */
  errors: Record<string, number>;
  /** Currency units charged for completed tasks (only tracked with a balance). */
  charged: number;
}

export function emptyCounters(): SimCounters {
  return {
    requests: 0,
    submits: { received: 0, accepted: 0, byRequest: {}, repeated: 0, busiest_second: 0 },
    tasks: { created: 0, planned_failures: 0 },
    queries: { single: 0, batch: 0, batch_tasks: 0 },
    downloads: { served: 0, bytes: 0, truncated: 0, expired: 0 },
    text: { calls: 0, streams: 0 },
    errors: {},
    charged: 0,
  };
}

/** Counts one error answer of `kind` (an HTTP status or a named fault). */
export function countError(counters: SimCounters, kind: string | number): void {
  const key = String(kind);
  counters.errors[key] = (counters.errors[key] ?? 0) + 1;
}

/** When the submits accepted in the last second arrived, per counters (kept out of their JSON). */
const lastSecond = new WeakMap<SimCounters, number[]>();

/** Counts an accepted submit of the request with this hash, which arrived at `now` (ms). */
export function countAccepted(counters: SimCounters, requestHash: string, now: number): void {
  const seen = counters.submits.byRequest[requestHash] ?? 0;
  counters.submits.byRequest[requestHash] = seen + 1;
  counters.submits.accepted += 1;
  if (seen === 1) counters.submits.repeated += 1;
  const window = lastSecond.get(counters) ?? [];
  lastSecond.set(counters, window);
  // Arrival times, handled a little out of order: kept sorted.
  let at = window.length;
  while (at > 0 && (window[at - 1] as number) > now) at--;
  window.splice(at, 0, now);
  const latest = window.at(-1) as number;
  while ((window[0] ?? latest) <= latest - 1000) window.shift();
  counters.submits.busiest_second = Math.max(counters.submits.busiest_second, window.length);
}
