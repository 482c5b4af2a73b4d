import { afterEach, describe, expect, it } from "vitest";
import { FleetPace } from "../../../src/fleet/pace.js";
import type { PaceRow, PaceTurn } from "../../../src/store/index.js";
import { openPgStore, type PgStore } from "../../../src/store/postgres/open.js";
import { ManualClock } from "../../helpers/clock.js";
import { moveDatabaseClock, testDatabase } from "../../helpers/postgres.js";

/**
 * One pace for every call, in a fleet: turns booked before a 429 anywhere in the fleet are
 * booked again, and a gateway that keeps its limit to itself tells it by its 429s.
 */

const ACCOUNT = "http://gateway.test:8080";

let stores: PgStore[] = [];
afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  stores = [];
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200_000 && !done(); i++)
    await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

describe("the fleet's pace after a 429", () => {
  it("books again a turn booked before a 429 that another process met", async () => {
    const clock = new ManualClock();
    let epoch = 0;
    const reserved: number[] = [];
    const row: PaceRow = {
      underLimit: 0.99,
      open: async () => ({ rate: 10, epoch, pausedMs: 0, queriesCount: false }),
      // Every turn lies 100 ms ahead, at the epoch the row is at.
      reserve: async () => {
        reserved.push(epoch);
        return {
          rate: 10,
          epoch,
          pausedMs: 0,
          queriesCount: false,
          slotAt: clock.now() + 100,
          waitMs: 100,
          turns: 1,
          spacingMs: 0,
        };
      },
      succeed: async () => ({ rate: 10, epoch, pausedMs: 0, queriesCount: false }),
      limit: async () => ({ rate: 10, epoch, pausedMs: 0, queriesCount: false }),
      queried: async () => ({ rate: 10, epoch, pausedMs: 0, queriesCount: false }),
      watch: async () => () => {},
    };
    const pace = await FleetPace.open(row, clock, ACCOUNT, 10);
    let came = 0;
    const ask = () =>
      void pace.acquire().then(() => {
        came += 1;
      });
    ask();
    await until(() => reserved.length === 1);
    // Another process met a 429 and cut the rate: the next turn booked here says so.
    epoch = 1;
    ask();
    await until(() => reserved.length === 2);
    clock.advance(100);
    // The first turn, booked at the old rate, is booked again; the second goes.
    await until(() => came === 1 && reserved.length === 3);
    expect(reserved).toEqual([0, 1, 1]);
    clock.advance(100);
    await until(() => came === 2);
  });

  it("hears at once of a 429 another process met, and books again the turn it waits for", async () => {
    const url = await testDatabase({ schema: true });
    const [here, there] = await Promise.all([openPgStore(url), openPgStore(url)]);
    stores.push(here, there);
    const clock = new ManualClock();
    const booked: PaceTurn[] = [];
    const row: PaceRow = {
      ...here.fleet.pace,
      reserve: async (account, succeeded) => {
        const turn = await here.fleet.pace.reserve(account, succeeded);
        booked.push(turn);
        return turn;
      },
    };
    const pace = await FleetPace.open(row, clock, ACCOUNT, 10);
    await pace.acquire();
    let came = false;
    void pace.acquire().then(() => {
      came = true;
    });
    await until(() => clock.nextWake !== undefined);
    expect(booked).toHaveLength(2);
    const waiting = booked[1] as PaceTurn;
    expect(waiting.waitMs).toBeGreaterThan(0);
    // Another process meets a 429 while this one waits: the news comes before the slot.
    let heard!: Promise<unknown>;
    await new Promise<void>((listening) => {
      heard = new Promise(
        (resolve) => void here.fleet.pace.watch(ACCOUNT, resolve).then(() => listening()),
      );
    });
    await there.fleet.pace.limit(ACCOUNT, waiting.epoch, undefined);
    await heard;
    clock.advance(waiting.waitMs);
    await until(() => booked.length === 3);
    expect(came).toBe(false);
    const again = booked[2] as PaceTurn;
    expect(again.epoch).toBe(waiting.epoch + 1);
    expect(again.rate).toBe(waiting.rate / 2);
    clock.advance(again.waitMs);
    await until(() => came);
    await pace.close();
  });

  it("learns a silent limit from the calls that got through between two 429s and stays under it", async () => {
    const url = await testDatabase({ schema: true });
    const store = await openPgStore(url);
    stores.push(store);
    const row = store.fleet.pace;
    await row.open(ACCOUNT, 40);
    // Turns booked back to back for over half a second at 40/s; then the gateway says no.
    const book = async (count: number): Promise<PaceTurn> => {
      let turn: PaceTurn | undefined;
      for (let i = 0; i < count; i++) turn = await row.reserve(ACCOUNT);
      if (turn === undefined) throw new Error("no turn");
      return turn;
    };
    const first = await book(30);
    await moveDatabaseClock(store.pool, 600);
    const cut = await row.limit(ACCOUNT, first.epoch, undefined);
    expect(cut.rate).toBe(20);
    // 25 turns over the next 1.2 s, the last answered 429: 24 got through, 20 a second.
    const second = await book(25);
    await row.succeed(ACCOUNT, 24);
    await moveDatabaseClock(store.pool, 1200);
    const told = await row.limit(ACCOUNT, second.epoch, undefined);
    // Just under what got through, not half of it (the statements take a few ms of their own).
    expect(told.rate).toBeLessThanOrEqual(0.97 * 20);
    expect(told.rate).toBeGreaterThan(0.97 * 18);
    // 400 successes would climb back to 40; the rate stays under what the 429s told.
    const climbed = await row.succeed(ACCOUNT, 400);
    expect(climbed.rate).toBeLessThan(0.97 * 20);
    expect(climbed.rate).toBeGreaterThan(0.97 * 16);
  });
});
