import type { LeaseHolder, LeaseRow, TickRow, TickStatus, TickTrigger } from "../rows.js";
import {
  leaseKeptFrom,
  leaseValues,
  type TickNotRun,
  tickNotRunValues,
} from "../schedule-records.js";
import type { SqliteDb } from "./db.js";

/** Scheduled manifests: tick records, and the lease that keeps a manifest from running twice. */

export function recordTickNotRun(s: SqliteDb, tick: TickNotRun, now: number): void {
  s.sql(
    "INSERT INTO ticks (name, tick, status, trigger, reason, fired_at) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(...tickNotRunValues(tick, now));
}

export function startTick(
  s: SqliteDb,
  tick: { name: string; tick: number; trigger: TickTrigger },
  now: number,
): number {
  return s.transaction(() => {
    const open = s
      .sql(
        "SELECT id FROM ticks WHERE name = ? AND tick = ? AND status IN ('running', 'interrupted') ORDER BY id DESC LIMIT 1",
      )
      .get(tick.name, tick.tick) as { id: number } | undefined;
    if (open !== undefined) {
      s.sql(
        "UPDATE ticks SET status = 'running', trigger = ?, fired_at = ?, exit_code = NULL, finished_at = NULL WHERE id = ?",
      ).run(tick.trigger, now, open.id);
      return open.id;
    }
    return Number(
      s
        .sql(
          "INSERT INTO ticks (name, tick, status, trigger, fired_at) VALUES (?, ?, 'running', ?, ?)",
        )
        .run(tick.name, tick.tick, tick.trigger, now).lastInsertRowid,
    );
  });
}

export function finishTick(
  s: SqliteDb,
  id: number,
  end: { runId: number | null; exitCode: number; status: TickStatus },
  now: number,
): void {
  s.sql("UPDATE ticks SET status = ?, run_id = ?, exit_code = ?, finished_at = ? WHERE id = ?").run(
    end.status,
    end.runId,
    end.exitCode,
    now,
    id,
  );
}

export function ticksOf(s: SqliteDb, name: string, limit: number): TickRow[] {
  return s
    .sql("SELECT * FROM ticks WHERE name = ? ORDER BY tick DESC, id DESC LIMIT ?")
    .all(name, limit) as TickRow[];
}

export function lastTickAt(s: SqliteDb, name: string): number | undefined {
  const row = s.sql("SELECT max(tick) AS tick FROM ticks WHERE name = ?").get(name) as {
    tick: number | null;
  };
  return row.tick ?? undefined;
}

export function unfinishedTicks(s: SqliteDb, name: string): TickRow[] {
  return s
    .sql(
      "SELECT * FROM ticks WHERE name = ? AND status IN ('running', 'interrupted') ORDER BY tick",
    )
    .all(name) as TickRow[];
}

export function deleteTicksBefore(s: SqliteDb, name: string, before: number): void {
  s.sql("DELETE FROM ticks WHERE name = ? AND tick < ?").run(name, before);
}

export function acquireLease(
  s: SqliteDb,
  name: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
  isGone: (lease: LeaseRow) => boolean,
): { acquired: true } | { acquired: false; lease: LeaseRow } {
  return s.transaction(() => {
    const lease = leaseOf(s, name);
    if (leaseKeptFrom(lease, holder, now, isGone)) return { acquired: false as const, lease };
    s.sql(
      `INSERT INTO leases (name, holder, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
    ).run(...leaseValues(name, holder, now, ttlMs));
    return { acquired: true as const };
  });
}

export function renewLease(
  s: SqliteDb,
  name: string,
  holderId: string,
  now: number,
  ttlMs: number,
): boolean {
  return (
    s
      .sql("UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?")
      .run(now + ttlMs, name, holderId).changes === 1
  );
}

export function releaseLease(s: SqliteDb, name: string, holderId: string): void {
  s.sql("DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holderId);
}

export function leaseOf(s: SqliteDb, name: string): LeaseRow | undefined {
  return s.sql("SELECT * FROM leases WHERE name = ?").get(name) as LeaseRow | undefined;
}
