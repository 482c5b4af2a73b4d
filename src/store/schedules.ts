import { statement } from "./statements.js";
import type { RunRow, Store } from "./store.js";

/**
 * Scheduled manifests in the store: tick records, the lease that keeps one manifest from
 * running twice at once (across processes), and deleting the records of pruned runs.
 *
 * Tick status: running → finished | interrupted (exit 130; resumed later) ; or skipped (the
 * manifest was running) ; or missed (downtime, and the catch-up policy left it out).
 */

export const TickStatus = {
  Running: "running",
  Finished: "finished",
  Interrupted: "interrupted",
  Skipped: "skipped",
  Missed: "missed",
} as const;
export type TickStatus = (typeof TickStatus)[keyof typeof TickStatus];

export const TickTrigger = {
  OnTime: "on-time",
  CatchUp: "catch-up",
  Resumed: "resumed",
  /** A one-shot `gwrun run` (a system crontab, or by hand). */
  Run: "run",
} as const;
export type TickTrigger = (typeof TickTrigger)[keyof typeof TickTrigger];

export interface TickRow {
  id: number;
  name: string;
  tick: number;
  status: TickStatus;
  trigger: TickTrigger;
  run_id: number | null;
  exit_code: number | null;
  reason: string | null;
  fired_at: number;
  finished_at: number | null;
}

/** Records a tick that was skipped or missed. */
export function recordTickNotRun(
  store: Store,
  tick: {
    name: string;
    tick: number;
    status: "skipped" | "missed";
    trigger: TickTrigger;
    reason: string;
  },
  now: number,
): void {
  statement(
    store,
    "INSERT INTO ticks (name, tick, status, trigger, reason, fired_at) VALUES (?, ?, ?, ?, ?, ?)",
  ).run(tick.name, tick.tick, tick.status, tick.trigger, tick.reason, now);
}

/**
 * Records a tick whose run starts now; an earlier record of the same tick that never finished
 * (a crash, an interruption) is taken up again rather than doubled. Returns the record's id.
 */
export function startTick(
  store: Store,
  tick: { name: string; tick: number; trigger: TickTrigger },
  now: number,
): number {
  return store.transaction(() => {
    const open = statement(
      store,
      "SELECT id FROM ticks WHERE name = ? AND tick = ? AND status IN ('running', 'interrupted') ORDER BY id DESC LIMIT 1",
    ).get(tick.name, tick.tick) as { id: number } | undefined;
    if (open !== undefined) {
      statement(
        store,
        "UPDATE ticks SET status = 'running', trigger = ?, fired_at = ?, exit_code = NULL, finished_at = NULL WHERE id = ?",
      ).run(tick.trigger, now, open.id);
      return open.id;
    }
    return Number(
      statement(
        store,
        "INSERT INTO ticks (name, tick, status, trigger, fired_at) VALUES (?, ?, 'running', ?, ?)",
      ).run(tick.name, tick.tick, tick.trigger, now).lastInsertRowid,
    );
  });
}

/** Records how a tick's run ended: interrupted (exit 130, to be resumed) or finished. */
export function finishTick(
  store: Store,
  id: number,
  end: { runId: number | null; exitCode: number },
  now: number,
): void {
  statement(
    store,
    "UPDATE ticks SET status = ?, run_id = ?, exit_code = ?, finished_at = ? WHERE id = ?",
  ).run(end.exitCode === 130 ? "interrupted" : "finished", end.runId, end.exitCode, now, id);
}

/** The latest `limit` tick records of a manifest, newest first. */
export function ticksOf(store: Store, name: string, limit: number): TickRow[] {
  return statement(
    store,
    "SELECT * FROM ticks WHERE name = ? ORDER BY tick DESC, id DESC LIMIT ?",
  ).all(name, limit) as TickRow[];
}

/** The latest tick any scheduler or one-shot run handled for a manifest. */
export function lastTickAt(store: Store, name: string): number | undefined {
  const row = statement(store, "SELECT max(tick) AS tick FROM ticks WHERE name = ?").get(name) as {
    tick: number | null;
  };
  return row.tick ?? undefined;
}

/** Ticks whose run started and did not finish (a crash or an interruption), oldest first. */
export function unfinishedTicks(store: Store, name: string): TickRow[] {
  return statement(
    store,
    "SELECT * FROM ticks WHERE name = ? AND status IN ('running', 'interrupted') ORDER BY tick",
  ).all(name) as TickRow[];
}

// --- runs of ticks

/** The run of a manifest's tick, if one was started. */
export function runOfTick(store: Store, name: string, tick: number): RunRow | undefined {
  return statement(
    store,
    "SELECT * FROM runs WHERE name = ? AND tick = ? ORDER BY id DESC LIMIT 1",
  ).get(name, tick) as RunRow | undefined;
}

/** The scheduled runs of a manifest, newest tick first. */
export function scheduledRuns(store: Store, name: string): RunRow[] {
  return statement(
    store,
    "SELECT * FROM runs WHERE name = ? AND tick IS NOT NULL ORDER BY tick DESC, id DESC",
  ).all(name) as RunRow[];
}

/**
 * Output files (and their review images) recorded for the jobs only this run holds, less any
 * path another run's outputs also name (ticks writing into one folder reuse file names).
 */
export function filesOfRun(store: Store, runId: number): string[] {
  const rows = statement(
    store,
    `SELECT outputs.path, outputs.thumbnail, outputs.poster FROM run_jobs
       JOIN outputs ON outputs.job_key = run_jobs.key
     WHERE run_jobs.run_id = ?
       AND NOT EXISTS (SELECT 1 FROM run_jobs other WHERE other.key = run_jobs.key AND other.run_id != run_jobs.run_id)`,
  ).all(runId) as { path: string | null; thumbnail: string | null; poster: string | null }[];
  const shared = statement(
    store,
    `SELECT 1 FROM outputs JOIN run_jobs ON run_jobs.key = outputs.job_key
     WHERE run_jobs.run_id != @run AND (outputs.path = @file OR outputs.thumbnail = @file OR outputs.poster = @file)
     LIMIT 1`,
  );
  return rows
    .flatMap((row) => [row.path, row.thumbnail, row.poster])
    .filter(
      (file): file is string => file !== null && shared.get({ run: runId, file }) === undefined,
    );
}

/** Forgets a run: its row, its events, and the jobs (with outputs and answers) no other run holds. */
export function deleteRun(store: Store, runId: number): void {
  store.transaction(() => {
    const own = `SELECT key FROM run_jobs WHERE run_id = @run
      AND key NOT IN (SELECT key FROM run_jobs WHERE run_id != @run)`;
    statement(store, `DELETE FROM text_answers WHERE job_key IN (${own})`).run({ run: runId });
    statement(store, `DELETE FROM outputs WHERE job_key IN (${own})`).run({ run: runId });
    statement(store, `DELETE FROM events WHERE job_key IN (${own})`).run({ run: runId });
    const keys = statement(store, own).pluck().all({ run: runId }) as string[];
    statement(store, "DELETE FROM events WHERE run_id = ?").run(runId);
    statement(store, "DELETE FROM run_jobs WHERE run_id = ?").run(runId);
    const job = statement(store, "DELETE FROM jobs WHERE key = ?");
    for (const key of keys) job.run(key);
    statement(
      store,
      "UPDATE jobs SET run_id = (SELECT run_id FROM run_jobs WHERE run_jobs.key = jobs.key LIMIT 1) WHERE run_id = ?",
    ).run(runId);
    statement(store, "UPDATE ticks SET run_id = NULL WHERE run_id = ?").run(runId);
    statement(store, "DELETE FROM runs WHERE id = ?").run(runId);
  });
}

/** Forgets a manifest's tick records older than `before` (ms). */
export function deleteTicksBefore(store: Store, name: string, before: number): void {
  statement(store, "DELETE FROM ticks WHERE name = ? AND tick < ?").run(name, before);
}

// --- leases

export interface LeaseRow {
  name: string;
  holder: string;
  host: string;
  pid: number;
  acquired_at: number;
  expires_at: number;
}

export interface LeaseHolder {
  /** Unique per process and lease: host:pid:random. */
  id: string;
  host: string;
  pid: number;
}

/**
 * Takes the lease of `name` for `ttlMs` when it is free, expired, or held by a process that is
 * gone (`isGone` says so); otherwise returns who holds it. One write transaction, so two
 * processes asking at once cannot both get it.
 */
export function acquireLease(
  store: Store,
  name: string,
  holder: LeaseHolder,
  now: number,
  ttlMs: number,
  isGone: (lease: LeaseRow) => boolean,
): { acquired: true } | { acquired: false; lease: LeaseRow } {
  return store.transaction(() => {
    const lease = leaseOf(store, name);
    if (
      lease !== undefined &&
      lease.holder !== holder.id &&
      lease.expires_at > now &&
      !isGone(lease)
    ) {
      return { acquired: false as const, lease };
    }
    statement(
      store,
      `INSERT INTO leases (name, holder, host, pid, acquired_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, host = excluded.host, pid = excluded.pid,
         acquired_at = excluded.acquired_at, expires_at = excluded.expires_at`,
    ).run(name, holder.id, holder.host, holder.pid, now, now + ttlMs);
    return { acquired: true as const };
  });
}

/** Extends a held lease; false when it is no longer this holder's. */
export function renewLease(
  store: Store,
  name: string,
  holderId: string,
  now: number,
  ttlMs: number,
): boolean {
  return (
    statement(store, "UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ?").run(
      now + ttlMs,
      name,
      holderId,
    ).changes === 1
  );
}

/** Gives a lease up (only the holder can). */
export function releaseLease(store: Store, name: string, holderId: string): void {
  statement(store, "DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holderId);
}

/** Who holds a manifest's lease, if anyone (it may have expired). */
export function leaseOf(store: Store, name: string): LeaseRow | undefined {
  return statement(store, "SELECT * FROM leases WHERE name = ?").get(name) as LeaseRow | undefined;
}
