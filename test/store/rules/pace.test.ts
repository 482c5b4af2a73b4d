import { describe, expect, it } from "vitest";
import { type Pace, SubmitPace, UNDER_LIMIT } from "../../../src/engine/pace.js";
import { openFleetPace } from "../../../src/fleet/pace.js";
import type { PgStore } from "../../../src/store/index.js";
import { ManualClock } from "../../helpers/clock.js";
import { ACCOUNT, askTurns, drive, processes } from "../../helpers/fleet-pace.js";
import { moveDatabaseClock } from "../../helpers/postgres.js";
import { PACE_CASES, type PaceCase } from "./pace.cases.js";

/** One table of what the pace does with the gateway's answers, in one process and in a fleet. */

interface Played {
  rate: number;
  queriesCount: boolean;
  /** How long the turn after the events waited, ms. */
  waited: number;
}

/** How a pace's side keeps time: `flushed` waits until what it was told is recorded. */
interface Side {
  clock: ManualClock;
  flushed(): Promise<void>;
  /** Lets `ms` go by without a call. */
  pass(ms: number): Promise<void>;
  /** Brings the side's other clocks to the last turn given. */
  tookTurns(): Promise<void>;
}

async function play(
  pace: Pace,
  { clock, flushed, pass, tookTurns }: Side,
  { events }: PaceCase,
): Promise<Played> {
  for (const event of events) {
    if ("turns" in event) {
      const came = askTurns(pace, event.turns);
      await drive(clock, () => came() === event.turns);
      await tookTurns();
    } else if ("successes" in event) {
      for (let i = 0; i < event.successes; i++) pace.succeeded(event.announced);
    } else if ("queries" in event) {
      for (let i = 0; i < event.queries; i++) await pace.query();
    } else if ("quietMs" in event) await pass(event.quietMs);
    else pace.rateLimited(event.retryAfterMs, event.announced, event.query);
    await flushed();
  }
  const { rate, queriesCount } = pace;
  const from = clock.now();
  const came = askTurns(pace, 1);
  await drive(clock, () => came() === 1);
  return { rate, queriesCount, waited: clock.now() - from };
}

function expectPlayed(
  played: Played,
  { rate, nextTurnAfterMs, queriesCount = false }: PaceCase,
  under: number,
): void {
  expect(played.queriesCount).toBe(queriesCount);
  expect(played.rate).toBeCloseTo(typeof rate === "number" ? rate : rate.under * under, 6);
  // A fleet's row counts the pause from the database's now, a few ms on from the test's.
  if (nextTurnAfterMs !== undefined) expect(played.waited).toBeGreaterThan(nextTurnAfterMs - 100);
}

describe("the pace after the gateway's answers", () => {
  it.each(PACE_CASES)("in one process: $name", async (pace) => {
    const clock = new ManualClock();
    const side: Side = {
      clock,
      flushed: async () => {},
      pass: async (ms) => clock.advance(ms),
      tookTurns: async () => {},
    };
    const played = await play(new SubmitPace(clock, pace.ceiling), side, pace);
    expectPlayed(played, pace, UNDER_LIMIT);
  });

  it.each(PACE_CASES)("in a fleet: $name", async (pace) => {
    const clock = new ManualClock();
    const [store] = (await processes(1)) as [PgStore];
    const fleetPace = await openFleetPace(store, clock, ACCOUNT, pace.ceiling);
    const side: Side = {
      clock,
      flushed: () => fleetPace.flushed(),
      pass: async (ms) => {
        clock.advance(ms);
        await moveDatabaseClock(store.pool, ms);
      },
      // The row books turns by the database's clock, which stood still while they were given.
      tookTurns: async () => {
        const { rows } = await store.pool.query<{ ms: number }>(
          `SELECT (EXTRACT(EPOCH FROM next_at - gwrun_now()) * 1000 - 1000 / rate)::float8 AS ms
             FROM gateway_pace`,
        );
        await moveDatabaseClock(store.pool, Math.max(0, rows[0]?.ms ?? 0));
      },
    };
    const played = await play(fleetPace, side, pace);
    expectPlayed(played, pace, store.fleet.pace.underLimit);
    await fleetPace.close();
  });
});
