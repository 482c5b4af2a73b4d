import { expect, onTestFinished } from "vitest";
import type { Pace } from "../../src/engine/pace.js";
import type { PaceRow, PaceTurn } from "../../src/store/pace-port.js";
import { openPgStore, type PgStore } from "../../src/store/postgres/open.js";
import type { ManualClock } from "./clock.js";
import { testDatabase } from "./postgres.js";

/** What the fleet pace tests share: processes on one database, and ways to drive them. */

export const ACCOUNT = "http://gateway.test:8080";

/** `count` stores on one new database: a process each, with a pool of its own. */
export async function processes(count: number): Promise<PgStore[]> {
  const url = await testDatabase({ schema: true });
  const opened = await Promise.all(Array.from({ length: count }, () => openPgStore(url)));
  onTestFinished(() => Promise.all(opened.map((store) => store.close())).then(() => {}));
  // Connected ahead, so a process's first two turns are not booked a connection apart.
  await Promise.all(
    opened.flatMap((store) => [store.pool.query("SELECT 1"), store.pool.query("SELECT 1")]),
  );
  return opened;
}

/** The pace row of `store`, recording each turn it hands out, and each booking. */
export function recorded(store: PgStore): PaceRow & { turns: PaceTurn[]; bookings: number[] } {
  const row = store.fleet.pace;
  const turns: PaceTurn[] = [];
  const bookings: number[] = [];
  return {
    ...row,
    turns,
    bookings,
    reserve: async (account, succeeded, count) => {
      const turn = await row.reserve(account, succeeded, count);
      bookings.push(turn.turns);
      for (let i = 0; i < turn.turns; i++)
        turns.push({ ...turn, slotAt: turn.slotAt + i * turn.spacingMs });
      return turn;
    },
  };
}

/**
 * Lets database answers come in and moves the manual clock to each sleeper's wake time,
 * until `done`. Database time is real; the processes' waits are the manual clock's.
 */
export async function drive(clock: ManualClock, done: () => boolean): Promise<void> {
  for (let i = 0; i < 200_000 && !done(); i++) {
    const wake = clock.nextWake;
    if (wake !== undefined) clock.advance(Math.max(0, wake - clock.now()));
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(done()).toBe(true);
}

/** Lets database answers come in, the manual clock standing still, until `done`. */
export async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200_000 && !done(); i++)
    await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

/** Starts `count` acquires; the returned function says how many have come. */
export function askTurns(pace: Pace, count: number): () => number {
  let came = 0;
  for (let i = 0; i < count; i++)
    void pace.acquire().then(() => {
      came += 1;
    });
  return () => came;
}

export async function paceRow(
  store: PgStore,
): Promise<{ rate: number; epoch: number; paused: number }> {
  // Database time as ms since the Unix epoch; float8, so compare to within 0.01 ms.
  const { rows } = await store.pool.query(
    `SELECT rate, epoch, EXTRACT(EPOCH FROM paused_until)::float8 * 1000 AS paused
       FROM gateway_pace WHERE account = $1`,
    [ACCOUNT],
  );
  return rows[0];
}
