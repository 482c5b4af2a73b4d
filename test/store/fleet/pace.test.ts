import { describe, expect, it, onTestFinished } from "vitest";
import { FleetPace, openFleetPace } from "../../../src/fleet/pace.js";
import { openPgStore, type PgStore } from "../../../src/store/postgres/open.js";
import { ManualClock } from "../../helpers/clock.js";
import {
  ACCOUNT,
  askTurns,
  drive,
  paceRow,
  processes,
  recorded,
  until,
} from "../../helpers/fleet-pace.js";
import { moveDatabaseClock, testDatabase } from "../../helpers/postgres.js";

describe("fleet pace on one PostgreSQL row", () => {
  it("gives four processes turns 1/rate apart in database time after a slower first second, never two in one slot", async () => {
    const clock = new ManualClock();
    const rows = (await processes(4)).map(recorded);
    const paces = await Promise.all(rows.map((row) => FleetPace.open(row, clock, ACCOUNT, 10)));
    const came = paces.map((pace) => askTurns(pace, 6));
    await drive(clock, () => came.every((count) => count() === 6));
    const slots = rows.flatMap((row) => row.turns.map((turn) => turn.slotAt)).sort((a, b) => a - b);
    expect(slots).toHaveLength(24);
    // At 10/s a turn every 100 ms, booked ahead of the database's now, so back to back; in the
    // first second every 150 ms (0, 150, … 900), so a slow start cannot crowd it.
    const gaps = slots.slice(1).map((slot, i) => slot - (slots[i] ?? 0));
    for (const [i, gap] of gaps.entries()) expect(gap).toBeCloseTo(i < 7 ? 150 : 100, 2);
    for (const row of rows) expect(row.turns).toHaveLength(6);
  });

  it("starts slow again after a second without turns", async () => {
    const [store] = await processes(1);
    const row = (store as PgStore).fleet.pace;
    await row.open(ACCOUNT, 10);
    const gaps = async (count: number) => {
      const slots: number[] = [];
      for (let i = 0; i < count; i++) slots.push((await row.reserve(ACCOUNT)).slotAt);
      return slots.slice(1).map((slot, i) => Math.round(slot - (slots[i] ?? 0)));
    };
    // Booked back to back: 150 ms apart until a second in, then 100.
    expect(await gaps(10)).toEqual([150, 150, 150, 150, 150, 150, 150, 100, 100]);
    // The last turn booked was 1.25 s on; a second after it, the pace is idle.
    await moveDatabaseClock((store as PgStore).pool, 2500);
    expect(await gaps(3)).toEqual([150, 150]);
  });

  it("halves the rate once when two processes see 429s of one burst, again after a new turn", async () => {
    const clock = new ManualClock();
    const stores = await processes(2);
    const [a, b] = await Promise.all(
      stores.map((store) => openFleetPace(store, clock, ACCOUNT, 40)),
    );
    if (a === undefined || b === undefined) throw new Error("two paces");
    const cameA = askTurns(a, 1);
    await drive(clock, () => cameA() === 1);
    const cameB = askTurns(b, 1);
    await drive(clock, () => cameB() === 1);
    for (let i = 0; i < 3; i++) {
      a.rateLimited(undefined);
      b.rateLimited(undefined);
    }
    await Promise.all([a.flushed(), b.flushed()]);
    expect(a.rate).toBe(20);
    expect(b.rate).toBe(20);
    // A turn given at the new rate speaks for it: its 429 halves again.
    const again = askTurns(a, 1);
    await drive(clock, () => again() === 1);
    a.rateLimited(undefined);
    b.rateLimited(undefined);
    await Promise.all([a.flushed(), b.flushed()]);
    expect(await paceRow(stores[0] as PgStore)).toMatchObject({ rate: 10, epoch: 2 });
  });

  it("pauses every process for a Retry-After, and a turn booked before it waits it out", async () => {
    const clock = new ManualClock();
    const stores = await processes(3);
    const [a, b, c] = stores.map(recorded);
    if (a === undefined || b === undefined || c === undefined) throw new Error("three rows");
    const [paceA, paceB, paceC] = await Promise.all(
      [a, b, c].map((row) => FleetPace.open(row, clock, ACCOUNT, 2)),
    );
    if (paceA === undefined || paceB === undefined || paceC === undefined) throw new Error("paces");
    // A takes one turn and books the next (500 ms on); the first gets a 429 with Retry-After 2 s.
    const cameA = askTurns(paceA, 2);
    await until(() => cameA() === 1 && a.turns.length === 2);
    paceA.rateLimited(2000);
    await paceA.flushed();
    const { paused } = await paceRow(stores[0] as PgStore);
    const cameB = askTurns(paceB, 1);
    const cameC = askTurns(paceC, 1);
    await until(() => b.turns.length === 1 && c.turns.length === 1);
    for (const turn of [b.turns[0], c.turns[0]]) {
      expect(turn?.slotAt).toBeGreaterThanOrEqual(paused - 0.01);
      expect(turn?.waitMs).toBeGreaterThan(1500);
    }
    clock.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    expect([cameA(), cameB(), cameC()]).toEqual([1, 0, 0]);
    await drive(clock, () => cameA() === 2 && cameB() === 1 && cameC() === 1);
    // A's booked turn fell inside the pause: it booked again, after it.
    expect(a.turns).toHaveLength(3);
    expect(a.turns[2]?.slotAt).toBeGreaterThanOrEqual(paused - 0.01);
  });

  it("settles just under a limit the gateway announces, for every process", async () => {
    const clock = new ManualClock();
    const [a, b] = await Promise.all(
      (await processes(2)).map((store) => openFleetPace(store, clock, ACCOUNT, 100)),
    );
    if (a === undefined || b === undefined) throw new Error("two paces");
    a.succeeded(50);
    await a.flushed();
    expect(a.rate).toBeCloseTo(49.5, 6);
    for (let i = 0; i < 100; i++) b.succeeded();
    await b.flushed();
    expect(b.rate).toBeCloseTo(49.5, 6);
    // An announced limit on a 429 caps without halving.
    b.rateLimited(undefined, 40);
    await b.flushed();
    expect(b.rate).toBeCloseTo(39.6, 6);
  });

  it("climbs 5 % of the ceiling after 20 successes in a row counted across the fleet", async () => {
    const clock = new ManualClock();
    const [a, b] = await Promise.all(
      (await processes(2)).map((store) => openFleetPace(store, clock, ACCOUNT, 40)),
    );
    if (a === undefined || b === undefined) throw new Error("two paces");
    a.rateLimited(undefined);
    await a.flushed();
    expect(a.rate).toBe(20);
    for (let i = 0; i < 10; i++) a.succeeded();
    await a.flushed();
    for (let i = 0; i < 9; i++) {
      b.succeeded();
      await b.flushed();
    }
    expect(b.rate).toBe(20);
    b.succeeded();
    await b.flushed();
    expect(b.rate).toBe(22);
    for (let i = 0; i < 400; i++) a.succeeded();
    await a.flushed();
    for (let i = 0; i < 20; i++) {
      a.succeeded();
      await a.flushed();
    }
    expect(a.rate).toBe(40);
  });

  it("never halves below half the rate last sustained", async () => {
    const clock = new ManualClock();
    const [store] = await processes(1);
    const pace = await openFleetPace(store as PgStore, clock, ACCOUNT, 8);
    for (let i = 0; i < 20; i++) {
      pace.succeeded();
      await pace.flushed();
    }
    for (let burst = 0; burst < 6; burst++) {
      const came = askTurns(pace, 1);
      await drive(clock, () => came() === 1);
      pace.rateLimited(undefined);
      await pace.flushed();
    }
    expect(pace.rate).toBe(4);
  });

  it("keeps the learned rate across closing and reopening, as the store's learned rate", async () => {
    const clock = new ManualClock();
    const url = await testDatabase({ schema: true });
    const first = await openPgStore(url);
    const pace = await openFleetPace(first, clock, ACCOUNT, 40);
    pace.rateLimited(undefined);
    await pace.flushed();
    await first.close();
    const again = await openPgStore(url);
    onTestFinished(() => again.close());
    expect(await again.learnedRate(ACCOUNT)).toBe(20);
    expect((await openFleetPace(again, clock, ACCOUNT, 40)).rate).toBe(20);
    // A lower ceiling cuts a higher learned rate; the store's saved rate is the row's.
    expect((await openFleetPace(again, clock, ACCOUNT, 10)).rate).toBe(10);
    await again.saveLearnedRate(ACCOUNT, 7);
    expect(await again.learnedRate(ACCOUNT)).toBe(7);
    expect(await again.learnedRate("http://other.test")).toBeUndefined();
  });
});
