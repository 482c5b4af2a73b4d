import type { NewRun, RunNotice, RunRow } from "../rows.js";
import { newRunValues } from "../schedule-records.js";
import type { SqliteDb } from "./db.js";

/** Runs: recording, finding, and forgetting a pruned one. */

export function createRun(s: SqliteDb, run: NewRun): number {
  const result = s
    .sql(
      `INSERT INTO runs (name, manifest_path, manifest_text, base_url, output_dir, status, started_at, tick, project_dir)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
    )
    .run(...newRunValues(run));
  return Number(result.lastInsertRowid);
}

export function finishRun(
  s: SqliteDb,
  id: number,
  status: string,
  exitCode: number,
  now: number,
  stopReason: string | null = null,
): void {
  s.sql(
    "UPDATE runs SET status = ?, exit_code = ?, finished_at = ?, stop_reason = ? WHERE id = ?",
  ).run(status, exitCode, now, stopReason, id);
}

export function setDependantRules(s: SqliteDb, id: number, rules: string): void {
  s.sql("UPDATE runs SET dependant_rules = ? WHERE id = ?").run(rules, id);
}

export function run(s: SqliteDb, id: number): RunRow | undefined {
  return s.sql("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
}

export function latestRun(s: SqliteDb, name?: string): RunRow | undefined {
  return (
    name === undefined
      ? s.sql("SELECT * FROM runs ORDER BY id DESC LIMIT 1").get()
      : s.sql("SELECT * FROM runs WHERE name = ? ORDER BY id DESC LIMIT 1").get(name)
  ) as RunRow | undefined;
}

export function runs(s: SqliteDb, limit: number): RunRow[] {
  return s.sql("SELECT * FROM runs ORDER BY id DESC LIMIT ?").all(limit) as RunRow[];
}

export function runOfTick(s: SqliteDb, name: string, tick: number): RunRow | undefined {
  return s
    .sql("SELECT * FROM runs WHERE name = ? AND tick = ? ORDER BY id DESC LIMIT 1")
    .get(name, tick) as RunRow | undefined;
}

export function scheduledRuns(s: SqliteDb, name: string): RunRow[] {
  return s
    .sql("SELECT * FROM runs WHERE name = ? AND tick IS NOT NULL ORDER BY tick DESC, id DESC")
    .all(name) as RunRow[];
}

/**
 * Output files (and their review images) recorded for the tasks only this run holds, less any
 * path another run's outputs also name (ticks writing into one folder reuse file names).
 */
export function filesOfRun(s: SqliteDb, runId: number): string[] {
  const rows = s
    .sql(
      `SELECT outputs.path, outputs.thumbnail, outputs.poster FROM run_jobs
         JOIN outputs ON outputs.job_key = run_jobs.key
       WHERE run_jobs.run_id = ?
         AND NOT EXISTS (SELECT 1 FROM run_jobs other WHERE other.key = run_jobs.key AND other.run_id != run_jobs.run_id)`,
    )
    .all(runId) as { path: string | null; thumbnail: string | null; poster: string | null }[];
  const shared = s.sql(
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

export function deleteRun(s: SqliteDb, runId: number): void {
  s.transaction(() => {
    const own = `SELECT key FROM run_jobs WHERE run_id = @run
      AND key NOT IN (SELECT key FROM run_jobs WHERE run_id != @run)`;
    s.sql(`DELETE FROM text_answers WHERE job_key IN (${own})`).run({ run: runId });
    s.sql(`DELETE FROM reviews WHERE job_key IN (${own})`).run({ run: runId });
    s.sql(`DELETE FROM output_copies WHERE job_key IN (${own})`).run({ run: runId });
    s.sql(`DELETE FROM outputs WHERE job_key IN (${own})`).run({ run: runId });
    s.sql(`DELETE FROM events WHERE job_key IN (${own})`).run({ run: runId });
    const keys = s.sql(own).pluck().all({ run: runId }) as string[];
    s.sql("DELETE FROM events WHERE run_id = ?").run(runId);
    s.sql("DELETE FROM run_jobs WHERE run_id = ?").run(runId);
    const task = s.sql("DELETE FROM jobs WHERE key = ?");
    for (const key of keys) task.run(key);
    s.sql(
      "UPDATE jobs SET run_id = (SELECT run_id FROM run_jobs WHERE run_jobs.key = jobs.key LIMIT 1) WHERE run_id = ?",
    ).run(runId);
    s.sql("UPDATE ticks SET run_id = NULL WHERE run_id = ?").run(runId);
    s.sql("DELETE FROM runs WHERE id = ?").run(runId);
  });
}

export function learnedRate(s: SqliteDb, baseUrl: string): number | undefined {
  const row = s.sql("SELECT submit_rate FROM gateway_state WHERE base_url = ?").get(baseUrl) as
    | { submit_rate: number | null }
    | undefined;
  return row?.submit_rate ?? undefined;
}

export function saveLearnedRate(s: SqliteDb, baseUrl: string, rate: number): void {
  s.sql(
    "INSERT INTO gateway_state (base_url, submit_rate) VALUES (?, ?) ON CONFLICT(base_url) DO UPDATE SET submit_rate = excluded.submit_rate",
  ).run(baseUrl, rate);
}

/** Notices share the event log with task moves, without a task. */
export function recordRunNotice(s: SqliteDb, runId: number, notice: RunNotice): void {
  s.sql("INSERT INTO events (run_id, at, job_key, type, data) VALUES (?, ?, NULL, ?, ?)").run(
    runId,
    notice.at,
    notice.type,
    notice.message,
  );
}

export function runNoticesOf(s: SqliteDb, runId: number, limit: number): RunNotice[] {
  return s
    .sql(
      `SELECT at, type, data AS message FROM events
       WHERE run_id = ? AND job_key IS NULL AND type IN ('gateway:rate-limited', 'run:stopping')
       ORDER BY id DESC LIMIT ?`,
    )
    .all(runId, limit) as RunNotice[];
}
