import { describe, expect, it } from "vitest";
import { ErrorCode } from "../../../src/core/errors.js";
import { type Random, seededRandom } from "../../../src/core/random.js";
import { backoffMs, GatewayError, withRetry } from "../../../src/gateway/index.js";
import { ManualClock } from "../../helpers/clock.js";

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
});

/** A random source that always draws `value`: pins where in the jitter range a wait falls. */
const always = (value: number): Random => ({ next: () => value });
/** The top of the jitter range. */
const TOP = 1 - 1e-9;

describe("backoff between retries", () => {
  it("doubles the longest wait with each retry, starting from min_delay", () => {
    const longest = (retry: number) => backoffMs(retry, policy, always(TOP));
    expect(longest(0)).toBeCloseTo(policy.minDelayMs, 3);
    for (let retry = 1; retry <= 3; retry++) {
      expect(longest(retry) / longest(retry - 1)).toBeCloseTo(2, 5);
    }
  });

  it("never waits longer than max_delay, however many retries, and reaches it", () => {
    for (const retry of [4, 5, 10, 60, 2000]) {
      const longest = backoffMs(retry, policy, always(TOP));
      expect(longest).toBeLessThanOrEqual(policy.maxDelayMs);
      expect(longest).toBeCloseTo(policy.maxDelayMs, 3);
    }
  });

  it("spreads the waits of a retry at random across its whole range (full jitter)", () => {
    // The fourth retry's range is up to min_delay·2³ = 800 ms.
    const waits = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => backoffMs(3, policy, random));
    };
    const seven = waits(7);
    expect(new Set(seven).size).toBeGreaterThan(45);
    expect(Math.min(...seven)).toBeLessThan(200);
    expect(Math.max(...seven)).toBeGreaterThan(700);
    for (const wait of seven) {
      expect(wait).toBeGreaterThan(0);
      expect(wait).toBeLessThanOrEqual(800);
    }
    expect(waits(7)).toEqual(seven);
    expect(waits(8)).not.toEqual(seven);
  });

  it("waits in proportion to where the random draw falls in the range", () => {
    expect(backoffMs(3, policy, always(0.5))).toBeCloseTo(400, 6);
    expect(backoffMs(2, policy, always(0.75))).toBeCloseTo(300, 6);
    expect(backoffMs(9, policy, always(0.25))).toBeCloseTo(250, 6);
  });

  it("never retries at once, even on the lowest draw", () => {
    expect(backoffMs(0, policy, always(0))).toBeGreaterThan(0);
  });
});
