import type { LeaseHolder, LeaseRow, TickRow, TickStatus, TickTrigger } from "../rows.js";
import {
  leaseKeptFrom,
  leaseValues,
  type TickNotRun,
  tickNotRunValues,
} from "../schedule-records.js";
import { changes, type PgDb, row, rows, type Sql } from "./db.js";

/** Tick records and manifest leases, as `../sqlite/schedules.ts` keeps them. */

/** Holds a manifest's name for the rest of a transaction: its tick and lease reads then writes. */
async function lockName(sql: Sql, name: string): Promise<void> {
  await sql.query("SELECT pg_advisory_xact_lock(hashtextextended('gwrun:' || $1, 0))", [name]);
}

export async function recordTickNotRun(db: PgDb, tick: TickNotRun, now: number): Promise<void> {
  await db.pool.query(
    "INSERT INTO ticks (name, tick, status, trigger, reason, fired_at) VALUES ($1, $2, $3, $4, $5, $6)",
    tickNotRunValues(tick, now),
  );
}

export function startTick(
  db: PgDb,
  tick: { name: string; tick: number; trigger: TickTrigger },
  now: number,
): Promise<number> {
  return db.transaction(async (sql) => {
    await lockName(sql, tick.name);
    const open = await row<{ id: number }>(
      sql,
      "SELECT id FROM ticks WHERE name = $1 AND tick = $2 AND status IN ('running', 'interrupted') ORDER BY id DESC LIMIT 1",
      [tick.name, tick.tick],
    );
    if (open !== undefined) {
      await sql.query(
        "UPDATE ticks SET status = 'running', trigger = $1, fired_at = $2, exit_code = NULL, finished_at = NULL WHERE id = $3",
        [tick.trigger, now, open.id],
      );
      return open.id;
    }
    const created = await row<{ id: number }>(
      sql,
      "INSERT INTO ticks (name, tick, status, trigger, fired_at) VALUES ($1, $2, 'running', $3, $4) RETURNING id",
      [tick.name, tick.tick, tick.trigger, now],
    );
    if (created === undefined) throw new Error("the tick was not recorded");
    return created.id;
  });
}

export async function finishTick(
  db: PgDb,
  id: number,
  end: { runId: number | null; exitCode: number; status: TickStatus },
  now: number,
): Promise<void> {
  await db.pool.query(
    "UPDATE ticks SET status = $1, run_id = $2, exit_code = $3, finished_at = $4 WHERE id = $5",
    [end.status, end.runId, end.exitCode, now, id],
  );
}

export function ticksOf(db: PgDb, name: string, limit: number): Promise<TickRow[]> {
  return rows<TickRow>(
    db.pool,
    "SELECT * FROM ticks WHERE name = $1 ORDER BY tick DESC, id DESC LIMIT $2",
    [name, limit],
  );
}

export async function lastTickAt(db: PgDb, name: string): Promise<number | undefined> {
  const found = await row<{ tick: number | null }>(
    db.pool,
    "SELECT max(tick) AS tick FROM ticks WHERE name = $1",
    [name],
  );
  return found?.tick ?? undefined;
}

export function unfinishedTicks(db: PgDb, name: string): Promise<TickRow[]> {
  return rows<TickRow>(
    db.pool,
    "SELECT * FROM ticks WHERE name = $1 AND status IN ('running', 'interrupted') ORDER BY tick",
    [name],
  );
}

export async function deleteTicksBefore(db: PgDb, name: string, before: number): Promise<void> {
  await db.pool.query("DELETE FROM ticks WHERE name = $1 AND tick < $2", [name, before]);
}

export function acquireLease(
  db: PgDb,
  name: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
  isGone: (lease: LeaseRow) => boolean,
): Promise<{ acquired: true } | { acquired: false; lease: LeaseRow }> {
  return db.transaction(async (sql) => {
    // Two processes asking at once: the second reads the first's lease.
    await lockName(sql, name);
    const lease = await leaseIn(sql, name);
    if (leaseKeptFrom(lease, holder, now, isGone)) return { acquired: false as const, lease };
    await sql.query(
      `INSERT INTO leases (name, holder, host, pid, acquired_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
      leaseValues(name, holder, now, ttlMs),
    );
    return { acquired: true as const };
  });
}

export async function renewLease(
  db: PgDb,
  name: string,
  holderId: string,
  now: number,
  ttlMs: number,
): Promise<boolean> {
  const renewed = await changes(
    db.pool,
    "UPDATE leases SET expires_at = $1 WHERE name = $2 AND holder = $3",
    [now + ttlMs, name, holderId],
  );
  return renewed === 1;
}

export async function releaseLease(db: PgDb, name: string, holderId: string): Promise<void> {
  await db.pool.query("DELETE FROM leases WHERE name = $1 AND holder = $2", [name, holderId]);
}

export function leaseOf(db: PgDb, name: string): Promise<LeaseRow | undefined> {
  return leaseIn(db.pool, name);
}

function leaseIn(sql: Sql, name: string): Promise<LeaseRow | undefined> {
  return row<LeaseRow>(sql, "SELECT * FROM leases WHERE name = $1", [name]);
}
