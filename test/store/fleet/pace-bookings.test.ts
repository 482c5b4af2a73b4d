import { describe, expect, it } from "vitest";
import { FleetPace, OUTSTANDING } from "../../../src/fleet/pace.js";
import type { PaceRow, Successes } from "../../../src/store/pace-port.js";
import type { PgStore } from "../../../src/store/postgres/open.js";
import { ManualClock } from "../../helpers/clock.js";
import { ACCOUNT, askTurns, drive, processes, recorded, until } from "../../helpers/fleet-pace.js";

/** How a process books its turns: ahead for those asking, together, and never too many. */
describe("a fleet process's booked turns", () => {
  it("books in one call the turns of the submits that ask while a booking is under way, and holds at most OUTSTANDING booked", async () => {
    const clock = new ManualClock();
    const [store] = await processes(1);
    const row = recorded(store as PgStore);
    const pace = await FleetPace.open(row, clock, ACCOUNT, 5);
    const came = askTurns(pace, 8);
    // The first asks alone; the others that took a place meanwhile are booked together.
    await until(() => came() === 1 && row.turns.length >= OUTSTANDING);
    expect(row.bookings.slice(0, 2)).toEqual([1, OUTSTANDING - 1]);
    // The turn given let one more ask book (a round trip away); the rest wait, booking nothing.
    await until(() => row.turns.length >= 1 + OUTSTANDING);
    for (let i = 0; i < 500; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(row.turns).toHaveLength(1 + OUTSTANDING);
    let most = 0;
    await drive(clock, () => {
      most = Math.max(most, row.turns.length - came());
      return came() === 8;
    });
    expect(most).toBeLessThanOrEqual(OUTSTANDING);
    expect(row.turns).toHaveLength(8);
    expect(row.bookings.length).toBeLessThan(8);
    // Booked together, they are still 1/rate apart (1.5/rate in the first second): 200 ms.
    const slots = row.turns.map((turn) => turn.slotAt);
    for (const [i, slot] of slots.slice(1).entries())
      expect(slot - (slots[i] as number)).toBeGreaterThanOrEqual(200 - 0.01);
  });

  it("lets a turn it woke to a whole turn late go, and books another", async () => {
    const clock = new ManualClock();
    const reserved: number[] = [];
    const state = { rate: 10, epoch: 0, pausedMs: 0, queriesCount: false };
    const row: PaceRow = {
      underLimit: 0.99,
      open: async () => state,
      // The first turn lies 100 ms ahead, the next one is due at once.
      reserve: async () => {
        reserved.push(clock.now());
        const waitMs = reserved.length === 1 ? 100 : 0;
        return { ...state, slotAt: clock.now() + waitMs, waitMs, turns: 1, spacingMs: 0 };
      },
      succeed: async () => state,
      limit: async () => state,
      queried: async () => state,
      watch: async () => () => {},
    };
    const pace = await FleetPace.open(row, clock, ACCOUNT, 10);
    const start = clock.now();
    const came = askTurns(pace, 1);
    await until(() => clock.nextWake !== undefined);
    // The host stalls: it wakes 250 ms after a slot that allowed 100 ms (1/rate) of lateness.
    clock.advance(350);
    await until(() => came() === 1);
    expect(reserved.map((at) => at - start)).toEqual([0, 350]);
  });

  it("reports successes with the next turn it books, and on their own when no turn is asked for", async () => {
    const clock = new ManualClock();
    const state = { rate: 10, epoch: 0, pausedMs: 0, queriesCount: false };
    const carried: (Successes | undefined)[] = [];
    const sent: Successes[] = [];
    const row: PaceRow = {
      underLimit: 0.99,
      open: async () => state,
      // Each turn lies 100 ms ahead.
      reserve: async (_account, succeeded) => {
        carried.push(succeeded);
        return { ...state, slotAt: clock.now() + 100, waitMs: 100, turns: 1, spacingMs: 0 };
      },
      succeed: async (_account, count, announced) => {
        sent.push({ count, announced });
        return state;
      },
      limit: async () => state,
      queried: async () => state,
      watch: async () => () => {},
    };
    const pace = await FleetPace.open(row, clock, ACCOUNT, 10);
    const came = askTurns(pace, 1);
    await until(() => carried.length === 1);
    // A turn is being booked: these wait for the next one.
    pace.succeeded();
    pace.succeeded(50);
    const second = askTurns(pace, 1);
    await until(() => carried.length === 2);
    expect(carried).toEqual([undefined, { count: 2, announced: 50 }]);
    await drive(clock, () => came() === 1 && second() === 1);
    expect(sent).toEqual([]);
    // No turn asked for: sent at once.
    pace.succeeded();
    await pace.flushed();
    expect(sent).toEqual([{ count: 1, announced: undefined }]);
  });

  it("drops a row update that fails, without throwing", async () => {
    const clock = new ManualClock();
    const failing: PaceRow = {
      underLimit: 0.99,
      open: async () => ({ rate: 5, epoch: 0, pausedMs: 0, queriesCount: false }),
      reserve: async () => ({
        rate: 5,
        epoch: 0,
        pausedMs: 0,
        queriesCount: false,
        slotAt: 0,
        waitMs: 0,
        turns: 1,
        spacingMs: 0,
      }),
      succeed: async () => {
        throw new Error("connection lost");
      },
      limit: () => {
        throw new Error("connection lost");
      },
      queried: () => {
        throw new Error("connection lost");
      },
      watch: async () => () => {},
    };
    const pace = await FleetPace.open(failing, clock, ACCOUNT, 5);
    expect(() => pace.succeeded()).not.toThrow();
    expect(() => pace.rateLimited(100)).not.toThrow();
    await pace.flushed();
    expect(pace.rate).toBe(5);
    await pace.acquire();
  });
  it("books turns of a slow first second only up to its end, so those after it are 1/rate apart", async () => {
    const [store] = await processes(1);
    const row = (store as PgStore).fleet.pace;
    await row.open(ACCOUNT, 10);
    const first = await row.reserve(ACCOUNT, undefined, 4);
    // The first second goes at 1.5/rate: 150 ms apart.
    expect([first.turns, Math.round(first.spacingMs)]).toEqual([4, 150]);
    const second = await row.reserve(ACCOUNT, undefined, 4);
    // From 600 ms: three more start within the first second (600, 750, 900).
    expect([second.turns, Math.round(second.slotAt - first.slotAt)]).toEqual([3, 600]);
    const third = await row.reserve(ACCOUNT, undefined, 4);
    // From 1,050 ms on: 100 ms apart, as one by one.
    expect([
      third.turns,
      Math.round(third.spacingMs),
      Math.round(third.slotAt - first.slotAt),
    ]).toEqual([4, 100, 1050]);
  });
});
