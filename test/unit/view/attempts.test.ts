import { describe, expect, it } from "vitest";
import { FailedAttempts } from "../../../src/view/attempts.js";

describe("failed token attempts", () => {
  it("blocks an address for a minute at its tenth failure within a minute, others not", () => {
    const attempts = new FailedAttempts();
    for (let at = 0; at < 9; at++) expect(attempts.failed("10.0.0.1", at * 1000)).toBe(false);
    expect(attempts.blocked("10.0.0.1", 9000)).toBe(false);
    expect(attempts.failed("10.0.0.1", 9000)).toBe(true);
    expect(attempts.blocked("10.0.0.1", 9000 + 59_999)).toBe(true);
    expect(attempts.blocked("10.0.0.2", 9000)).toBe(false);
    expect(attempts.blocked("10.0.0.1", 9000 + 60_000)).toBe(false);
  });

  it("forgets failures older than the window", () => {
    const attempts = new FailedAttempts();
    for (let at = 0; at < 9; at++) attempts.failed("10.0.0.1", at);
    // The nine are a minute old: the tenth is the first of a new count.
    expect(attempts.failed("10.0.0.1", 60_010)).toBe(false);
    expect(attempts.blocked("10.0.0.1", 60_010)).toBe(false);
  });
});
