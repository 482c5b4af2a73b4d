/** Parsers for the manifest's human units: durations ("15s", "500ms", "2m") and rates ("5/s"). */

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const DURATION_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Milliseconds of "15s", "500ms", "2m", "1h", "7d"; a bare number is seconds. Undefined if malformed. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === "number")
    return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  const match = DURATION.exec(value.trim());
  if (match === null) return undefined;
  return Number(match[1]) * (DURATION_MS[match[2] as string] as number);
}

export interface Rate {
  /** Requests allowed per `perMs` milliseconds. */
  count: number;
  perMs: number;
}

const RATE = /^(\d+(?:\.\d+)?)\s*\/\s*(ms|s|m|h|sec|min)$/;
const RATE_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
};

/** The rate as requests per second. */
export function perSecond(rate: Rate): number {
  return (rate.count * 1000) / rate.perMs;
}

/** A rate such as "5/s", "120/m" or "1000/h"; undefined if malformed. */
export function parseRate(value: string): Rate | undefined {
  const match = RATE.exec(value.trim());
  if (match === null) return undefined;
  const count = Number(match[1]);
  if (!(count > 0)) return undefined;
  return { count, perMs: RATE_MS[match[2] as string] as number };
}
