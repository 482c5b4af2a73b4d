import type { Clock } from "../core/clock.js";
import { ErrorCode } from "../core/errors.js";
import type { Random } from "../core/random.js";
import { GatewayError } from "./errors.js";

/** How often and how patiently to retry (the manifest's `retry:`). */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  minDelayMs: number;
  maxDelayMs: number;
}

/**
 * What is retried, by error code: rate limits, server errors and broken connections are;
 * refusals (400, 401, 422), the balance (402) and unknown tasks never are. Downloads and
 * proxies say themselves (a truncated file is worth another try, an oversized one is not; a
 * proxy that is down may come back, one that refuses the credentials will not).
 */
const RETRY_BY_CODE: Readonly<Partial<Record<ErrorCode, "always" | "never" | "as-marked">>> = {
  [ErrorCode.HttpRateLimited]: "always",
  [ErrorCode.HttpServer]: "always",
  [ErrorCode.Network]: "always",
  [ErrorCode.Proxy]: "as-marked",
  [ErrorCode.DownloadInvalid]: "as-marked",
  [ErrorCode.HttpOther]: "as-marked",
  [ErrorCode.HttpInvalid]: "never",
  [ErrorCode.HttpUnauthorized]: "never",
  [ErrorCode.HttpPaymentRequired]: "never",
  [ErrorCode.HttpNotFound]: "never",
  [ErrorCode.TaskUnknown]: "never",
  [ErrorCode.LinkExpired]: "never",
};

/** Whether an error is worth another try. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  const rule = RETRY_BY_CODE[error.code] ?? "never";
  return rule === "always" || (rule === "as-marked" && error.retryable);
}

/** Capped exponential backoff with full jitter: a random wait up to min·2^retry, at most max. */
export function backoffMs(retry: number, policy: RetryPolicy, random: Random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.minDelayMs * 2 ** retry);
  return Math.max(policy.minDelayMs / 2, random.next() * ceiling);
}

export interface RetryDeps {
  clock: Clock;
  random: Random;
  signal?: AbortSignal;
  /** Told before each wait: the error, the wait in ms, and the retry number (1-based). */
  onRetry?: (error: GatewayError, delayMs: number, retry: number) => void;
}

/** 429s are waited out rather than counted as attempts, up to this many. */
const MAX_RATE_LIMITED = 100;

/**
 * Calls `fn` until it succeeds, fails for good, or the attempts run out; honours Retry-After.
 * A 429 is the gateway pacing us, not a failure: it does not use up an attempt.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  policy: RetryPolicy,
  deps: RetryDeps,
): Promise<T> {
  let attempt = 1;
  let rateLimited = 0;
  for (let retry = 1; ; retry++) {
    try {
      return await fn(attempt);
    } catch (error) {
      const limited = error instanceof GatewayError && error.code === ErrorCode.HttpRateLimited;
      if (limited) rateLimited += 1;
      else attempt += 1;
      const exhausted = limited ? rateLimited > MAX_RATE_LIMITED : attempt > policy.attempts;
      if (exhausted || !isRetryable(error) || deps.signal?.aborted === true) throw error;
      const gatewayError = error as GatewayError;
      const backoff = limited ? 0 : backoffMs(attempt - 2, policy, deps.random);
      const delay = Math.max(gatewayError.retryAfterMs ?? 0, backoff);
      deps.onRetry?.(gatewayError, delay, retry);
      await deps.clock.sleep(delay, deps.signal);
    }
  }
}

/**
 * Whether a failed request may have reached the gateway: a refused or never-opened
 * connection did not; a reset or timeout after sending may have.
 */
export function mayHaveArrived(error: unknown): boolean {
  if (!(error instanceof GatewayError) || error.code !== ErrorCode.Network) return false;
  const code = (error.cause as { code?: string } | undefined)?.code;
  return code !== "ECONNREFUSED" && code !== "UND_ERR_CONNECT_TIMEOUT" && code !== "ENOTFOUND";
}
