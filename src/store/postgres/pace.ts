import type { PaceRow, PaceState, PaceTurn, Successes } from "../pace-port.js";
import { row, type Sql } from "./db.js";
import { PACE_CHANNEL, type PaceNews } from "./pace-news.js";

/**
 * The gateway pace row (`gateway_pace`): one per gateway account, shared by every worker of a
 * fleet. Each operation is one guarded UPDATE timed by the database clock (`gwrun_now()`),
 * so hosts with skewed clocks still space their submits 1/rate apart. The rules are those of
 * the in-memory `SubmitPace` (`src/engine/pace.ts`), and one of its own: a fleet's first second
 * goes slower (see `reserveTurns`).
 */

/**
 * Just under the announced limit (the stored one, or $3 when given), so the bucket never runs
 * dry. Closer than one process's pace (0.97): turns come from one clock, the database's, so
 * no two processes' clocks drift against each other.
 */
const UNDER = 0.99;
/** How far under a limit its 429s told the row settles: the telling is rougher. */
const UNDER_TOLD = 0.97;
/** How long a limit told by 429s holds the rate under it (`LIMIT_MEMORY_MS` of `SubmitPace`). */
const TOLD_FOR = "interval '60 seconds'";
const TOLD = `CASE WHEN p.limit_until > gwrun_now() THEN ${UNDER_TOLD} * p.limit_told END`;
const CAP = `LEAST(p.ceiling, ${UNDER} * COALESCE($3::float8, p.announced, 'Infinity'::float8), ${TOLD})`;
const PAUSED_MS =
  "GREATEST(0, COALESCE(EXTRACT(EPOCH FROM p.paused_until - gwrun_now()) * 1000, 0))::float8";
const STATE = `p.rate, p.epoch, ${PAUSED_MS} AS paused_ms, p.queries_count`;
/** The row's state after a 429, sent to every process of the fleet (`./pace-news.ts`). */
const TELL = `pg_notify('${PACE_CHANNEL}', json_build_object('account', p.account, 'rate', p.rate,
  'epoch', p.epoch, 'pausedMs', ${PAUSED_MS}, 'queriesCount', p.queries_count)::text)`;

interface StateRow {
  rate: number;
  epoch: number | string;
  paused_ms: number;
  queries_count: boolean;
}

function state(found: StateRow | undefined, account: string): PaceState {
  if (found === undefined) throw new Error(`no pace row for ${account}`);
  // BIGINT may come back as a string from a pool without the store's type parsers.
  return {
    rate: found.rate,
    epoch: Number(found.epoch),
    pausedMs: found.paused_ms,
    queriesCount: found.queries_count,
  };
}

/** The pace row operations on `sql` (a pool), with the fleet's news of them. */
export function pgPaceRow(sql: Sql, news: PaceNews): PaceRow {
  return {
    underLimit: UNDER,
    open: (account, ceiling) => openPace(sql, account, ceiling),
    reserve: (account, succeeded, turns) => reserveTurns(sql, account, succeeded, turns),
    succeed: (account, count, announced) => recordSuccesses(sql, account, count, announced),
    limit: (account, epoch, retryAfterMs, announced, query) =>
      recordRateLimited(sql, account, epoch, retryAfterMs, announced, query),
    queried: (account, count) => recordQueries(sql, account, count),
    watch: (account, heard) => news.watch(account, heard),
  };
}

export async function openPace(sql: Sql, account: string, ceiling: number): Promise<PaceState> {
  return state(
    await row<StateRow>(
      sql,
      `INSERT INTO gateway_pace AS p (account, rate, ceiling) VALUES ($1, $2, $2)
       ON CONFLICT (account) DO UPDATE
         SET ceiling = excluded.ceiling,
             rate = LEAST(p.rate, excluded.ceiling, ${UNDER} * COALESCE(p.announced, 'Infinity'::float8)),
             updated_at = gwrun_now()
       RETURNING ${STATE}`,
      [account, ceiling],
    ),
    account,
  );
}

/** A pace idle this long starts slow again. */
const IDLE = "interval '1 second'";
/** How much farther apart the turns of a busy spell's first second are. */
const SLOW_START = 1.5;

export async function reserveTurns(
  sql: Sql,
  account: string,
  succeeded?: Successes,
  turns = 1,
): Promise<PaceTurn> {
  // The slot is read under the row's lock, before the move: the UPDATE's RETURNING sees only
  // the row after it. The turns are spaced at the rate before the successes they carry.
  const found = await row<
    StateRow & { slot_at: number; wait_ms: number; spacing_ms: number; turns: number }
  >(
    sql,
    `WITH locked AS (
       SELECT account, rate, GREATEST(next_at, gwrun_now(), paused_until) AS slot,
              CASE WHEN busy_since IS NULL OR next_at < gwrun_now() - ${IDLE}
                   THEN GREATEST(gwrun_now(), paused_until) ELSE busy_since END AS since
         FROM gateway_pace WHERE account = $1 FOR UPDATE),
     spaced AS (
       SELECT account, slot, since,
              CASE WHEN slot < since + ${IDLE} THEN ${SLOW_START} ELSE 1 END / rate AS spacing
         FROM locked),
     -- Turns of a slow first second are booked only up to its end, so the turns after it
     -- come 1/rate apart as if booked one by one.
     turn AS (
       SELECT account, slot, since, spacing,
              CASE WHEN slot < since + ${IDLE}
                   THEN LEAST($4::int, CEIL(EXTRACT(EPOCH FROM since + ${IDLE} - slot) / spacing)::int)
                   ELSE $4::int END AS turns
         FROM spaced)
     UPDATE gateway_pace p
        SET busy_since = t.since,
            next_at = t.slot + make_interval(secs => t.turns * t.spacing),
            ${SUCCEEDED}
       FROM turn t
      WHERE p.account = t.account
      RETURNING ${STATE},
        (EXTRACT(EPOCH FROM t.slot) * 1000)::float8 AS slot_at,
        GREATEST(0, EXTRACT(EPOCH FROM t.slot - gwrun_now()) * 1000)::float8 AS wait_ms,
        (t.spacing * 1000)::float8 AS spacing_ms, t.turns`,
    [account, succeeded?.count ?? 0, succeeded?.announced ?? null, turns],
  );
  return {
    ...state(found, account),
    slotAt: found?.slot_at ?? 0,
    waitMs: found?.wait_ms ?? 0,
    turns: found?.turns ?? 1,
    spacingMs: found?.spacing_ms ?? 0,
  };
}

/**
 * After 20 successes in a row the rate climbs by 5 % of the ceiling and, under a limit its
 * 429s told, at least halfway to just under it (`climbed` of `SubmitPace`). `count` ($2)
 * batches several: k = (successes + count) / 20 climbs at once, as k runs of 20 one by one
 * would (the halfway steps of k runs close k halvings of the gap). `announced` is $3.
 */
const CLIMBS = "((p.successes + $2::int) / 20)";
const CAPPED = `LEAST(p.rate, ${CAP})`;
const climbed = (runs: string) =>
  `LEAST(${CAP}, GREATEST(${CAPPED} + ${runs} * ${CAP} * 0.05,
     CASE WHEN p.limit_until > gwrun_now() THEN ${CAP} - (${CAP} - ${CAPPED}) / 2 ^ ${runs} END))`;
const SUCCEEDED = `announced = COALESCE($3::float8, p.announced),
  successes = (p.successes + $2::int) % 20,
  through_since = p.through_since + $2::int,
  sustained = CASE WHEN ${CLIMBS} > 0 THEN ${climbed(`(${CLIMBS} - 1)`)} ELSE p.sustained END,
  rate = ${climbed(CLIMBS)},
  updated_at = gwrun_now()`;

export async function recordSuccesses(
  sql: Sql,
  account: string,
  count: number,
  announced?: number,
): Promise<PaceState> {
  return state(
    await row<StateRow>(
      sql,
      `UPDATE gateway_pace p SET ${SUCCEEDED} WHERE p.account = $1 RETURNING ${STATE}`,
      [account, count, announced ?? null],
    ),
    account,
  );
}

/**
 * A 429: honours Retry-After fleet-wide (paused_until), settles under an announced limit, else
 * halves the rate, but only when the turn was given at the current epoch (compare-and-set), so
 * one burst halves it once; never below max(ceiling/64, sustained/2). A cut that came while
 * turns went out back to back for half a second learns the limit (`limit_told`): the calls
 * that got through since the 429 before it (successes and queries) over the time between them
 * when that was a second to a minute, and the rate goes just under it at once; else the rate
 * itself, never under the floor. The rate stays under it for a minute. `query` (a 429 to a
 * query), or a 429 to a submit sent under a known limit while queries went, teaches the row
 * that queries count (`queries_count`).
 */
export async function recordRateLimited(
  sql: Sql,
  account: string,
  epoch: number,
  retryAfterMs: number | undefined,
  announced?: number,
  query = false,
): Promise<PaceState> {
  // Sent under the limit the gateway announced, or the one 429s told, while queries went.
  const within = `(p.rate <= COALESCE(${UNDER} * $3::float8, ${TOLD}) * 1.001
                   AND p.queried_at > gwrun_now() - interval '1 second')`;
  const cuts = "($3::float8 IS NULL AND p.epoch = $2)";
  const busy = `(p.busy_since <= gwrun_now() - interval '500 milliseconds'
                 AND p.next_at >= gwrun_now() - make_interval(secs => 1.5 / p.rate))`;
  const since = "EXTRACT(EPOCH FROM gwrun_now() - p.limited_at)";
  const floor = `GREATEST(${CAP} / 64, p.sustained / 2)`;
  const measured = `(p.limited_at > gwrun_now() - ${TOLD_FOR} AND ${since} >= 1)`;
  const seen = `GREATEST(${floor}, CASE
                  WHEN ${measured} THEN LEAST(p.rate, p.through_since / ${since})
                  ELSE p.rate END)`;
  const learns = `(${cuts} AND ${busy})`;
  const told = `CASE WHEN ${learns} THEN ${seen} ELSE p.limit_told END`;
  const until = `CASE WHEN ${learns} THEN gwrun_now() + ${TOLD_FOR} ELSE p.limit_until END`;
  const halved = `GREATEST(LEAST(${floor}, p.rate), p.rate / 2)`;
  const underTold = `CASE WHEN ${learns} THEN ${UNDER_TOLD} * ${seen} END`;
  const rate = `CASE WHEN $3::float8 IS NOT NULL THEN LEAST(p.rate, ${CAP})
                     WHEN ${learns} AND ${measured} THEN ${underTold}
                     WHEN ${cuts} THEN LEAST(${halved}, ${underTold})
                     ELSE p.rate END`;
  return state(
    await row<StateRow>(
      sql,
      `UPDATE gateway_pace p
          SET announced = COALESCE($3::float8, p.announced),
              rate = ${rate},
              limit_told = ${told},
              limit_until = ${until},
              limited_at = gwrun_now(),
              through_since = 0,
              queries_count = p.queries_count OR $5::boolean OR COALESCE(${within}, false),
              epoch = CASE WHEN ${cuts} THEN p.epoch + 1 ELSE p.epoch END,
              successes = 0,
              paused_until = GREATEST(p.paused_until, gwrun_now()
                + make_interval(secs => COALESCE($4::float8 / 1000, 1.0 / (${rate})))),
              updated_at = gwrun_now()
        WHERE p.account = $1
        RETURNING ${STATE}, ${TELL}`,
      [account, epoch, announced ?? null, retryAfterMs ?? null, query],
    ),
    account,
  );
}

/** Queries that took no turn: calls the gateway let through, and when the last went. */
export async function recordQueries(sql: Sql, account: string, count: number): Promise<PaceState> {
  return state(
    await row<StateRow>(
      sql,
      `UPDATE gateway_pace p
          SET through_since = p.through_since + $2::int, queried_at = gwrun_now()
        WHERE p.account = $1
        RETURNING ${STATE}`,
      [account, count],
    ),
    account,
  );
}
