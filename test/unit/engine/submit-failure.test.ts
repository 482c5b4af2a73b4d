import { describe, expect, it } from "vitest";
import { ErrorCode, GwError } from "../../../src/core/errors.js";
import { classifySubmitFailure } from "../../../src/engine/submit.js";
import { badResponse } from "../../../src/gateway/envelope.js";
import { errorFromResponse, networkError } from "../../../src/gateway/errors.js";

const WHAT = "submit job-1";

/** The error the client makes of a non-2xx answer with the spec's error body. */
function httpError(status: number, message = `the gateway said ${status}`) {
  return errorFromResponse(status, {}, JSON.stringify({ error: { message } }), WHAT, 0);
}

describe("classifying a failed submit", () => {
  it("puts a task back to pending and halts submits on 402 (balance)", () => {
    const error = httpError(402, "insufficient balance");
    expect(classifySubmitFailure(error, false)).toEqual({
      to: "pending",
      reason: error.message,
      halt: "balance",
    });
  });

  it("halts on 402 even when the run is stopping", () => {
    expect(classifySubmitFailure(httpError(402), true)).toMatchObject({
      to: "pending",
      halt: "balance",
    });
  });

  it.each([
    ["a refusal (400)", httpError(400)],
    ["a server error (503)", httpError(503)],
    [
      "a broken connection",
      networkError(Object.assign(new Error("reset"), { code: "ECONNRESET" }), WHAT),
    ],
    ["a plain error", new Error("boom")],
  ])("puts a task back to pending without a halt after %s while stopping", (_, error) => {
    const failure = classifySubmitFailure(error, true);
    expect(failure.to).toBe("pending");
    expect(failure).not.toHaveProperty("halt");
  });

  it.each([400, 401, 422])("rejects a task the gateway refused with %i", (status) => {
    const error = httpError(status, "bad parameters");
    expect(error.message).toContain("bad parameters");
    expect(classifySubmitFailure(error, false)).toEqual({ to: "rejected", reason: error.message });
  });

  it.each([500, 502, 503])("fails a task whose submit still got %i after its retries", (status) => {
    const error = httpError(status);
    expect(classifySubmitFailure(error, false)).toEqual({ to: "failed", reason: error.message });
  });

  it("fails a task whose submit was still rate limited (429) after its retries", () => {
    const error = httpError(429);
    expect(classifySubmitFailure(error, false)).toEqual({ to: "failed", reason: error.message });
  });

  it("fails, not rejects, a task whose connection kept failing", () => {
    const error = networkError(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }), WHAT);
    expect(classifySubmitFailure(error, false)).toEqual({ to: "failed", reason: error.message });
  });

  it("fails, not rejects, a task whose receipt could not be read", () => {
    const error = badResponse(WHAT, "no task_id in the receipt");
    expect(classifySubmitFailure(error, false)).toEqual({ to: "failed", reason: error.message });
  });

  it("fails, not rejects, on an error that is not the gateway's", () => {
    const error = new GwError(ErrorCode.Internal, "internal bug");
    expect(classifySubmitFailure(error, false)).toEqual({ to: "failed", reason: "internal bug" });
    expect(classifySubmitFailure(new TypeError("oops"), false)).toEqual({
      to: "failed",
      reason: "oops",
    });
  });

  it("fails, not rejects, an error from elsewhere even when it carries an HTTP status", () => {
    const error = Object.assign(new Error("not the gateway"), { status: 400 });
    expect(classifySubmitFailure(error, false)).toEqual({ to: "failed", reason: error.message });
  });
});
