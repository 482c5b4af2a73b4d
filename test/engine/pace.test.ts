import { describe, expect, it } from "vitest";
import { SubmitPace } from "../../src/engine/pace.js";
import { ManualClock, settle } from "../helpers/clock.js";

/** Asks for `count` turns at once; the returned function says how many have come so far. */
function askTurns(pace: SubmitPace, count: number): () => number {
  let came = 0;
  for (let i = 0; i < count; i++) {
    void pace.acquire().then(() => {
      came += 1;
    });
  }
  return () => came;
}

/** Moves the clock on by `ms` and lets the woken turns resolve. */
async function pass(clock: ManualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await settle();
}

describe("submit pace", () => {
  it("lets the first submit go at once and each next one only 1/rate later, not before", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 5);
    const came = askTurns(pace, 4);
    await settle();
    expect(came()).toBe(1);
    // At 5/s a turn comes every 200 ms.
    for (const expected of [2, 3, 4]) {
      await pass(clock, 199);
      expect(came()).toBe(expected - 1);
      await pass(clock, 1);
      expect(came()).toBe(expected);
    }
  });

  it("saves up no burst over a quiet spell", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 5);
    await pace.acquire();
    await pass(clock, 10_000);
    const came = askTurns(pace, 2);
    await settle();
    expect(came()).toBe(1);
    await pass(clock, 199);
    expect(came()).toBe(1);
    await pass(clock, 1);
    expect(came()).toBe(2);
  });

  it("settles just under a limit the gateway announces", () => {
    const pace = new SubmitPace(new ManualClock(0), 100);
    pace.succeeded(50);
    expect(pace.rate).toBeLessThan(50);
    expect(pace.rate).toBeGreaterThan(45);
    const settled = pace.rate;
    for (let i = 0; i < 100; i++) pace.succeeded(50);
    expect(pace.rate).toBe(settled);
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

describe("submit pace under bursts of 429s", () => {
  it("issue 16 item 8: a burst of 429s halves the pace once, not once per answer", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 5);
    const came = askTurns(pace, 10);
    await pass(clock, 2000);
    expect(came()).toBe(10);
    // Ten submits were in flight when the gateway said no to each of them.
    for (let i = 0; i < 10; i++) pace.rateLimited(undefined);
    expect(pace.rate).toBe(2.5);
    // The next turn went out at the new rate; its 429 halves again.
    askTurns(pace, 1);
    await pass(clock, 1000);
    pace.rateLimited(undefined);
    expect(pace.rate).toBe(1.25);
  });

  it("issue 16 item 8: never falls below half the rate last sustained, and climbs back", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 8);
    for (let i = 0; i < 20; i++) pace.succeeded();
    for (let burst = 0; burst < 10; burst++) {
      askTurns(pace, 1);
      await pass(clock, 5000);
      pace.rateLimited(undefined);
    }
    expect(pace.rate).toBe(4);
    for (let i = 0; i < 400; i++) pace.succeeded();
    expect(pace.rate).toBe(8);
  });
});
