import type { Clock } from "../core/clock.js";
import { ErrorCode } from "../core/errors.js";
import type { Random } from "../core/random.js";
import { type RetryPolicy, withRetry } from "../gateway/index.js";
import type { Emit } from "./events.js";
import type { Pace } from "./pace.js";
import { HeldSubmit, submitMayHaveArrived } from "./unknown-submit.js";

export interface PacedCallDeps {
  pace: Pace;
  retry: RetryPolicy;
  clock: Clock;
  random: Random;
  emit: Emit;
  /** Stops waiting for the pace (the run is stopping); the call then fails. */
  signal?: AbortSignal;
  /** `retry.on_unknown_submit: hold`: a try that may have made its task is not made again. */
  holdUnknown?: boolean;
}

/** What happened on the way: tries that may have reached the gateway before failing. */
export interface CallTally {
  unknown: number;
}

/**
 * One generating call (a media submit or a text call) under the run's pace and retry policy.
 * The caller has taken the first turn at the pace; every retry takes its own. A 429 slows the
 * pace and honours Retry-After without using up an attempt; 5xx and connection errors are
 * retried with backoff; a try that may have arrived (reset after sending) is counted.
 */
export async function pacedCall<T>(
  what: string,
  call: () => Promise<T>,
  deps: PacedCallDeps,
  tally: CallTally,
): Promise<T> {
  const { pace, emit } = deps;
  let first = true;
  const attempt = async () => {
    if (!first) await pace.acquire(deps.signal);
    first = false;
    if (deps.holdUnknown !== true) return call();
    return call().catch((error: unknown) => {
      throw submitMayHaveArrived(error) ? new HeldSubmit(error as Error) : error;
    });
  };
  return withRetry(attempt, deps.retry, {
    clock: deps.clock,
    random: deps.random,
    onRetry: (error, delayMs) => {
      if (error.code === ErrorCode.HttpRateLimited) {
        pace.rateLimited(error.retryAfterMs, error.rateLimitPerSecond);
        emit({
          type: "gateway:rate-limited",
          retryAfterMs: error.retryAfterMs ?? delayMs,
          ratePerSecond: pace.rate,
        });
      } else {
        emit({ type: "gateway:retry", what, delayMs, reason: error.message });
      }
      // Policy for a call that may have arrived: make it again (counted), since the gateway
      // offers no way to find a task it never named.
      if (submitMayHaveArrived(error)) tally.unknown += 1;
    },
  });
}
