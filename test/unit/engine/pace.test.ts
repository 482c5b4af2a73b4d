import { describe, expect, it } from "vitest";
import { SubmitPace } from "../../../src/engine/pace.js";
import { ManualClock, settle } from "../../helpers/clock.js";

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
  it("a burst of 429s halves the pace once, not once per answer", async () => {
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

  it("never falls below half the rate last sustained, and climbs back", async () => {
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

describe("one pace for every call", () => {
  it("books again, at the new rate and after Retry-After, the turns booked before a 429", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 10);
    const came = askTurns(pace, 6);
    await pass(clock, 0);
    expect(came()).toBe(1);
    // Five turns were booked 100 ms apart; a 429 halves the rate and asks for a second.
    pace.rateLimited(1000);
    await pass(clock, 500);
    expect(came()).toBe(1);
    await pass(clock, 500);
    expect(came()).toBe(2);
    await pass(clock, 199);
    expect(came()).toBe(2);
    await pass(clock, 1);
    expect(came()).toBe(3);
  });

  it("learns a silent limit from what got through between two 429s and stays under it for a minute", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 40);
    // Back to back at 40/s for a second: the gateway says no (its bucket started full).
    askTurns(pace, 40);
    await pass(clock, 1000);
    pace.rateLimited(50);
    expect(pace.rate).toBe(20);
    // 30 turns went out over the next 1.5 s, the last answered 429: 29 got through.
    for (let i = 0; i < 20; i++) pace.succeeded();
    askTurns(pace, 30);
    for (let t = 0; t < 1500; t += 10) await pass(clock, 10);
    pace.rateLimited(50);
    for (let i = 0; i < 400; i++) pace.succeeded();
    expect(pace.rate).toBeCloseTo(0.97 * (29 / 1.5), 5);
    // A minute on, the pace climbs to the manifest's rate again, probing.
    await pass(clock, 60_000);
    for (let i = 0; i < 400; i++) pace.succeeded();
    expect(pace.rate).toBe(40);
  });

  it("makes queries take turns once the gateway answers one with 429, not before", async () => {
    const clock = new ManualClock(0);
    const pace = new SubmitPace(clock, 2);
    let queried = 0;
    const ask = () =>
      pace.query().then(() => {
        queried += 1;
      });
    await Promise.all([ask(), ask(), ask()]);
    expect(queried).toBe(3);
    // The 429 also halves the pace: queries now come one a second.
    pace.rateLimited(0, undefined, true);
    void ask();
    void ask();
    await pass(clock, 0);
    expect(queried).toBe(4);
    await pass(clock, 999);
    expect(queried).toBe(4);
    await pass(clock, 1);
    expect(queried).toBe(5);
  });

  it("learns that queries count from a 429 to a submit sent within an announced limit while polling", async () => {
    const clock = new ManualClock(0);
    const submitsOnly = new SubmitPace(clock, 10);
    submitsOnly.succeeded(20);
    submitsOnly.rateLimited(100, 20);
    let free = 0;
    await submitsOnly.query().then(() => {
      free += 1;
    });
    expect(free).toBe(1);
    const polling = new SubmitPace(clock, 10);
    polling.succeeded(20);
    await polling.query();
    polling.rateLimited(100, 20);
    let came = false;
    void polling.query().then(() => {
      came = true;
    });
    await settle();
    expect(came).toBe(false);
    await pass(clock, 100);
    expect(came).toBe(true);
  });
});
