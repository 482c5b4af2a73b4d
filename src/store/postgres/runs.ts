import type { NewRun, RunNotice, RunRow } from "../rows.js";
import { newRunValues } from "../schedule-records.js";
import { type PgDb, row, rows } from "./db.js";

/** Runs: recording, finding, and forgetting a pruned one (`../sqlite/runs.ts`). */

export async function createRun(db: PgDb, run: NewRun): Promise<number> {
  const created = await row<{ id: number }>(
    db.pool,
    `INSERT INTO runs (name, manifest_path, manifest_text, base_url, output_dir, status, started_at, tick, project_dir)
     VALUES ($1, $2, $3, $4, $5, 'running', $6, $7, $8) RETURNING id`,
    newRunValues(run),
  );
  if (created === undefined) throw new Error("the run was not recorded");
  return created.id;
}

export async function finishRun(
  db: PgDb,
  id: number,
  status: string,
  exitCode: number,
  now: number,
  stopReason: string | null = null,
): Promise<void> {
  await db.pool.query(
    "UPDATE runs SET status = $1, exit_code = $2, finished_at = $3, stop_reason = $4 WHERE id = $5",
    [status, exitCode, now, stopReason, id],
  );
}

export async function setDependantRules(db: PgDb, id: number, rules: string): Promise<void> {
  await db.pool.query("UPDATE runs SET dependant_rules = $1 WHERE id = $2", [rules, id]);
}

export function run(db: PgDb, id: number): Promise<RunRow | undefined> {
  // An id that is no integer names no run (SQLite compares it and finds none).
  if (!Number.isSafeInteger(id) || Math.abs(id) > 2 ** 31 - 1) return Promise.resolve(undefined);
  return row<RunRow>(db.pool, "SELECT * FROM runs WHERE id = $1", [id]);
}

export function latestRun(db: PgDb, name?: string): Promise<RunRow | undefined> {
  return name === undefined
    ? row<RunRow>(db.pool, "SELECT * FROM runs ORDER BY id DESC LIMIT 1")
    : row<RunRow>(db.pool, "SELECT * FROM runs WHERE name = $1 ORDER BY id DESC LIMIT 1", [name]);
}

export function runs(db: PgDb, limit: number): Promise<RunRow[]> {
  return rows<RunRow>(db.pool, "SELECT * FROM runs ORDER BY id DESC LIMIT $1", [limit]);
}

export function runOfTick(db: PgDb, name: string, tick: number): Promise<RunRow | undefined> {
  return row<RunRow>(
    db.pool,
    "SELECT * FROM runs WHERE name = $1 AND tick = $2 ORDER BY id DESC LIMIT 1",
    [name, tick],
  );
}

export function scheduledRuns(db: PgDb, name: string): Promise<RunRow[]> {
  return rows<RunRow>(
    db.pool,
    "SELECT * FROM runs WHERE name = $1 AND tick IS NOT NULL ORDER BY tick DESC, id DESC",
    [name],
  );
}

/**
 * Output files (and their review images) recorded for the tasks only this run holds, less any
 * path another run's outputs also name (ticks writing into one folder reuse file names).
 */
export async function filesOfRun(db: PgDb, runId: number): Promise<string[]> {
  const own = await rows<{ path: string | null; thumbnail: string | null; poster: string | null }>(
    db.pool,
    `SELECT outputs.path, outputs.thumbnail, outputs.poster FROM run_jobs
       JOIN outputs ON outputs.job_key = run_jobs.key
     WHERE run_jobs.run_id = $1
       AND NOT EXISTS (SELECT 1 FROM run_jobs other WHERE other.key = run_jobs.key AND other.run_id <> $1)
     ORDER BY run_jobs.key, outputs.idx`,
    [runId],
  );
  const files = own
    .flatMap((entry) => [entry.path, entry.thumbnail, entry.poster])
    .filter((file): file is string => file !== null);
  if (files.length === 0) return [];
  const shared = await rows<{ file: string }>(
    db.pool,
    `SELECT unnest(ARRAY[outputs.path, outputs.thumbnail, outputs.poster]) AS file
     FROM outputs JOIN run_jobs ON run_jobs.key = outputs.job_key
     WHERE run_jobs.run_id <> $1
       AND (outputs.path = ANY($2::text[]) OR outputs.thumbnail = ANY($2::text[]) OR outputs.poster = ANY($2::text[]))`,
    [runId, files],
  );
  const elsewhere = new Set(shared.map((entry) => entry.file));
  return files.filter((file) => !elsewhere.has(file));
}

export function deleteRun(db: PgDb, runId: number): Promise<void> {
  return db.transaction(async (sql) => {
    const own = `SELECT key FROM run_jobs WHERE run_id = $1
      AND key NOT IN (SELECT key FROM run_jobs WHERE run_id <> $1)`;
    const keys = (await rows<{ key: string }>(sql, own, [runId])).map((entry) => entry.key);
    await sql.query("DELETE FROM text_answers WHERE job_key = ANY($1::text[])", [keys]);
    await sql.query("DELETE FROM reviews WHERE job_key = ANY($1::text[])", [keys]);
    await sql.query("DELETE FROM output_copies WHERE job_key = ANY($1::text[])", [keys]);
    await sql.query("DELETE FROM outputs WHERE job_key = ANY($1::text[])", [keys]);
    await sql.query("DELETE FROM events WHERE job_key = ANY($1::text[])", [keys]);
    await sql.query("DELETE FROM events WHERE run_id = $1", [runId]);
    await sql.query("DELETE FROM run_jobs WHERE run_id = $1", [runId]);
    await sql.query("DELETE FROM jobs WHERE key = ANY($1::text[])", [keys]);
    await sql.query(
      "UPDATE jobs SET run_id = (SELECT run_id FROM run_jobs WHERE run_jobs.key = jobs.key LIMIT 1) WHERE run_id = $1",
      [runId],
    );
    await sql.query("UPDATE ticks SET run_id = NULL WHERE run_id = $1", [runId]);
    await sql.query("DELETE FROM runs WHERE id = $1", [runId]);
  });
}

/** The learned rate is the rate of the account's pace row (`./pace.ts`), shared by a fleet. */
export async function learnedRate(db: PgDb, baseUrl: string): Promise<number | undefined> {
  const found = await row<{ rate: number }>(
    db.pool,
    "SELECT rate FROM gateway_pace WHERE account = $1",
    [baseUrl],
  );
  return found?.rate;
}

/** A new row takes the rate as its ceiling too; a fleet's next open sets the manifest's. */
export async function saveLearnedRate(db: PgDb, baseUrl: string, rate: number): Promise<void> {
  await db.pool.query(
    `INSERT INTO gateway_pace (account, rate, ceiling) VALUES ($1, $2, $2)
     ON CONFLICT (account) DO UPDATE SET rate = excluded.rate, updated_at = clock_timestamp()`,
    [baseUrl, rate],
  );
}

/** Notices share the event log with task moves, without a task. */
export async function recordRunNotice(db: PgDb, runId: number, notice: RunNotice): Promise<void> {
  await db.pool.query(
    "INSERT INTO events (run_id, at, job_key, type, data) VALUES ($1, $2, NULL, $3, $4)",
    [runId, notice.at, notice.type, notice.message],
  );
}

export function runNoticesOf(db: PgDb, runId: number, limit: number): Promise<RunNotice[]> {
  return rows<RunNotice>(
    db.pool,
    `SELECT at, type, data AS message FROM events
     WHERE run_id = $1 AND job_key IS NULL AND type IN ('gateway:rate-limited', 'run:stopping')
     ORDER BY id DESC LIMIT $2`,
    [runId, limit],
  );
}
