import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../src/core/errors.js";
import { seededRandom } from "../../src/core/random.js";
import { backoffMs, GatewayError, withRetry } from "../../src/gateway/index.js";
import { ManualClock } from "../helpers/clock.js";

const policy = { attempts: 3, minDelayMs: 100, maxDelayMs: 1000 };

/** Runs withRetry on a manual clock, passing time whenever it waits. */
async function retried(
  errors: GatewayError[],
): Promise<{ result: unknown; calls: number; waited: number[] }> {
  const clock = new ManualClock();
  const waited: number[] = [];
  let calls = 0;
  const pending = withRetry(
    async () => {
      calls += 1;
      const error = errors.shift();
      if (error !== undefined) throw error;
      return "ok";
    },
    policy,
    {
      clock,
      random: seededRandom(1),
      onRetry: (_error, delay) => {
        waited.push(delay);
        queueMicrotask(() => clock.advance(delay));
      },
    },
  );
  const result = await pending.catch((error: unknown) => error);
  return { result, calls, waited };
}

const error = (code: ErrorCode, options: { retryAfterMs?: number; status?: number } = {}) =>
  new GatewayError(code, code, options);

describe("retry policy", () => {
  it("retries 5xx and connection errors up to the attempts", async () => {
    const { result, calls } = await retried([
      error(ErrorCode.HttpServer),
      error(ErrorCode.Network),
    ]);
    expect(result).toBe("ok");
    expect(calls).toBe(3);
    const exhausted = await retried([
      error(ErrorCode.HttpServer),
      error(ErrorCode.HttpServer),
      error(ErrorCode.HttpServer),
    ]);
    expect(exhausted.result).toBeInstanceOf(GatewayError);
    expect(exhausted.calls).toBe(3);
  });

  it("never retries a refusal (400/422), a bad key or the balance", async () => {
    for (const code of [
      ErrorCode.HttpInvalid,
      ErrorCode.HttpUnauthorized,
      ErrorCode.HttpPaymentRequired,
    ]) {
      const { calls } = await retried([error(code)]);
      expect(calls).toBe(1);
    }
  });

  it("waits out 429s as long as Retry-After says, without using up attempts", async () => {
    const limits = Array.from({ length: 5 }, () =>
      error(ErrorCode.HttpRateLimited, { retryAfterMs: 700 }),
    );
    const { result, calls, waited } = await retried(limits);
    expect(result).toBe("ok");
    expect(calls).toBe(6);
    expect(waited).toEqual([700, 700, 700, 700, 700]);
  });

  it("backs off exponentially with jitter, capped", () => {
    const random = seededRandom(7);
    for (let retry = 0; retry < 12; retry++) {
      const delay = backoffMs(retry, policy, random);
      expect(delay).toBeGreaterThanOrEqual(50);
      expect(delay).toBeLessThanOrEqual(Math.min(1000, 100 * 2 ** retry));
    }
  });
});
