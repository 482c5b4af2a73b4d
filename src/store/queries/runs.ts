import type { PathRebase } from "../port.js";
import { type ArgsOf, changes, first, read, rows, transaction, write } from "../program.js";
import type { NewRun, RunNotice, RunRow } from "../rows.js";

/** Runs: recording, finding, following, rebasing a legacy one, and forgetting a pruned one. */

const FILE_COLUMNS = ["path", "thumbnail", "poster"] as const;

export const runOperations = {
  createRun: write(function* (run: NewRun) {
    const created = yield* first<{ id: number }>(
      `INSERT INTO runs (name, manifest_path, manifest_text, base_url, output_dir, status, started_at, tick, project_dir, publish_to, unknown_cost)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?) RETURNING id`,
      [
        run.name,
        run.manifest_path,
        run.manifest_text,
        run.base_url,
        run.output_dir,
        run.started_at,
        run.tick ?? null,
        run.project_dir ?? null,
        run.publish_to === undefined || run.publish_to.length === 0
          ? null
          : JSON.stringify(run.publish_to),
        run.unknown_cost ?? null,
      ],
    );
    if (created === undefined) throw new Error("the run was not recorded");
    return created.id;
  }),
  finishRun: write(function* (
    ...[id, status, exitCode, now, stopReason, endStates]: ArgsOf<"finishRun">
  ) {
    yield* changes(
      `UPDATE runs SET status = ?, exit_code = ?, finished_at = ?, stop_reason = ?, end_states = ?
       WHERE id = ?`,
      [status, exitCode, now, stopReason ?? null, statesText(endStates), id],
    );
  }),
  setDependantRules: write(function* (id: number, rules: string) {
    yield* changes("UPDATE runs SET dependant_rules = ? WHERE id = ?", [rules, id]);
  }),
  run: read(function* (id: number) {
    // An id that is no integer names no run (PostgreSQL would refuse to compare it).
    if (!Number.isSafeInteger(id) || Math.abs(id) > 2 ** 31 - 1) return undefined;
    return yield* first<RunRow>("SELECT * FROM runs WHERE id = ?", [id]);
  }),
  latestRun: read(function* (name?: string) {
    return name === undefined
      ? yield* first<RunRow>("SELECT * FROM runs ORDER BY id DESC LIMIT 1")
      : yield* first<RunRow>("SELECT * FROM runs WHERE name = ? ORDER BY id DESC LIMIT 1", [name]);
  }),
  runs: read(function* (limit: number) {
    return yield* rows<RunRow>("SELECT * FROM runs ORDER BY id DESC LIMIT ?", [limit]);
  }),
  publishingRuns: read(function* () {
    return yield* rows<RunRow>("SELECT * FROM runs WHERE publish_to IS NOT NULL ORDER BY id DESC");
  }),
  runOfTick: read(function* (name: string, tick: number) {
    return yield* first<RunRow>(
      "SELECT * FROM runs WHERE name = ? AND tick = ? ORDER BY id DESC LIMIT 1",
      [name, tick],
    );
  }),
  scheduledRuns: read(function* (name: string) {
    return yield* rows<RunRow>(
      "SELECT * FROM runs WHERE name = ? AND tick IS NOT NULL ORDER BY tick DESC, id DESC",
      [name],
    );
  }),
  /**
   * Output files (and their review images) recorded for the tasks only this run holds, less
   * any path another run's outputs also name (ticks writing into one folder reuse file names).
   */
  filesOfRun: read(function* (runId: number) {
    type Files = Record<(typeof FILE_COLUMNS)[number], string | null>;
    const filesOf = (found: Files[]) =>
      found.flatMap((row) => FILE_COLUMNS.map((column) => row[column]));
    const own = filesOf(
      yield* rows<Files>(
        `SELECT outputs.path, outputs.thumbnail, outputs.poster FROM run_jobs
           JOIN outputs ON outputs.job_key = run_jobs.key
         WHERE run_jobs.run_id = ? AND NOT EXISTS (
           SELECT 1 FROM run_jobs other WHERE other.key = run_jobs.key AND other.run_id <> run_jobs.run_id)
         ORDER BY run_jobs.key, outputs.idx`,
        [runId],
      ),
    ).filter((file): file is string => file !== null);
    if (own.length === 0) return [];
    const elsewhere = new Set(
      filesOf(
        yield* rows<Files>(
          (d) => `SELECT outputs.path, outputs.thumbnail, outputs.poster
           FROM outputs JOIN run_jobs ON run_jobs.key = outputs.job_key
           WHERE run_jobs.run_id <> ?
             AND (${FILE_COLUMNS.map((column) => d.anyOf(`outputs.${column}`)).join(" OR ")})`,
          [runId, ...FILE_COLUMNS.map(() => own)],
        ),
      ),
    );
    return own.filter((file) => !elsewhere.has(file));
  }),
  /**
   * Forgets a run: its row, events, the rows it kept of URLs, and the tasks (with what they
   * hold) no other run holds.
   */
  deleteRun: transaction(function* (runId: number) {
    const own = yield* rows<{ key: string }>(
      `SELECT key FROM run_jobs WHERE run_id = ?
       AND key NOT IN (SELECT key FROM run_jobs WHERE run_id <> ?)`,
      [runId, runId],
    );
    const keys = own.map((row) => row.key);
    for (const table of [
      "text_answers",
      "reviews",
      "judgements",
      "output_copies",
      "outputs",
      "events",
    ])
      yield* changes((d) => `DELETE FROM ${table} WHERE ${d.anyOf("job_key")}`, [keys]);
    yield* changes("DELETE FROM events WHERE run_id = ?", [runId]);
    yield* changes("DELETE FROM run_jobs WHERE run_id = ?", [runId]);
    yield* changes((d) => `DELETE FROM jobs WHERE ${d.anyOf("key")}`, [keys]);
    yield* changes((d) => `DELETE FROM task_requests WHERE ${d.anyOf("key")}`, [keys]);
    yield* changes(
      "UPDATE jobs SET run_id = (SELECT run_id FROM run_jobs WHERE run_jobs.key = jobs.key LIMIT 1) WHERE run_id = ?",
      [runId],
    );
    yield* changes("UPDATE ticks SET run_id = NULL WHERE run_id = ?", [runId]);
    yield* changes("DELETE FROM run_row_sources WHERE run_id = ?", [runId]);
    yield* changes("DELETE FROM runs WHERE id = ?", [runId]);
  }),
  /** Notices share the event log with task moves, without a task. */
  recordRunNotice: write(function* (runId: number, notice: RunNotice) {
    yield* changes(
      "INSERT INTO events (run_id, at, job_key, type, data) VALUES (?, ?, NULL, ?, ?)",
      [runId, notice.at, notice.type, notice.message],
    );
  }),
  runNoticesOf: read(function* (runId: number, limit: number) {
    return yield* rows<RunNotice>(
      `SELECT at, type, data AS message FROM events
       WHERE run_id = ? AND job_key IS NULL AND type IN ('gateway:rate-limited', 'run:stopping')
       ORDER BY id DESC LIMIT ?`,
      [runId, limit],
    );
  }),
  legacyRuns: read(function* () {
    return yield* rows<RunRow>("SELECT * FROM runs WHERE project_dir IS NULL ORDER BY id");
  }),
  rebasePaths: transaction(function* (rebases: readonly PathRebase[]) {
    for (const rebase of rebases)
      yield* changes(
        "UPDATE runs SET manifest_path = ?, output_dir = ?, project_dir = ? WHERE id = ?",
        [rebase.manifestPath, rebase.outputDir, rebase.root, rebase.runId],
      );
    // Every file recorded below a root loses the root's prefix (`substr` counts from 1).
    for (const root of new Set(rebases.map((rebase) => rebase.root))) {
      const prefix = `${root}/`;
      for (const column of FILE_COLUMNS)
        yield* changes(
          `UPDATE outputs SET ${column} = substr(${column}, CAST(? AS INTEGER))
           WHERE substr(${column}, 1, CAST(? AS INTEGER)) = ?`,
          [prefix.length + 1, prefix.length, prefix],
        );
    }
  }),
};

/** A run's tasks by state at its end, as kept (`runs.end_states`). */
export function statesText(states: Readonly<Record<string, number>> | undefined): string | null {
  if (states === undefined) return null;
  return JSON.stringify(Object.fromEntries(Object.entries(states).filter(([, n]) => n > 0)));
}
