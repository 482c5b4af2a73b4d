import { describe, expect, it } from "vitest";
import { SubmitPace } from "../../src/engine/pace.js";
import { ManualClock } from "../helpers/clock.js";

describe("submit pace", () => {
  it("spaces submits evenly at the manifest's rate", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 10);
    const starts: number[] = [];
    for (let i = 0; i < 4; i++) {
      const turn = pace.acquire();
      clock.advance(100);
      await turn;
      starts.push(clock.now());
    }
    expect(pace.rate).toBe(10);
    expect(starts[3] as number).toBeGreaterThanOrEqual(300);
  });

  it("settles just under a limit the gateway announces", () => {
    const pace = new SubmitPace(new ManualClock(0), 100);
    pace.succeeded(50);
    expect(pace.rate).toBeCloseTo(48.5);
    for (let i = 0; i < 100; i++) pace.succeeded(50);
    expect(pace.rate).toBeCloseTo(48.5);
  });

  it("halves on a 429 without an announced limit, then climbs back", () => {
    const pace = new SubmitPace(new ManualClock(0), 40);
    pace.rateLimited(1000);
    expect(pace.rate).toBe(20);
    for (let i = 0; i < 200; i++) pace.succeeded();
    expect(pace.rate).toBe(40);
  });

  it("starts from a rate learned in an earlier run", () => {
    expect(new SubmitPace(new ManualClock(0), 40, 12).rate).toBe(12);
  });
});
