import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { migrate } from "./migrate.js";
import { canMove, type JobState } from "./states.js";

/**
 * The state database (SQLite, WAL) and the only code that writes SQL. Job transitions are
 * guarded compare-and-set updates checked against the state graph; callers batch them in
 * `transaction()`.
 */

export interface RunRow {
  id: number;
  name: string;
  manifest_path: string;
  manifest_text: string;
  base_url: string;
  output_dir: string;
  status: string;
  exit_code: number | null;
  started_at: number;
  finished_at: number | null;
  /** The schedule tick of a scheduled run (ms); null otherwise. */
  tick: number | null;
}

export interface JobRow {
  key: string;
  run_id: number;
  job_id: string;
  label: string;
  family: string | null;
  lane: string;
  endpoint: string;
  request: string;
  upstream_key: string | null;
  state: JobState;
  task_id: string | null;
  attempts: number;
  unknown_submits: number;
  claimed_by: string | null;
  progress: number | null;
  polls: number;
  next_poll_at: number | null;
  estimated_cost: number | null;
  cost: number | null;
  reason: string | null;
  created_at: number;
  submitted_at: number | null;
  started_at: number | null;
  completed_at: number | null;
  done_at: number | null;
  updated_at: number;
  /** 1 for a stand-in for the dependants of a failed upstream (never submitted). */
  placeholder: number;
}

export interface OutputRow {
  job_key: string;
  idx: number;
  url: string | null;
  expires_at: number | null;
  state: "pending" | "downloaded" | "expired" | "failed";
  path: string | null;
  bytes: number | null;
  sha256: string | null;
  content_type: string | null;
  reason: string | null;
  /** Post-processing: "ok" | "failed", null until checked. */
  check_state: "ok" | "failed" | null;
  /** JSON of the checks: problems and what was measured. */
  checks: string | null;
  thumbnail: string | null;
  poster: string | null;
}

/** What a report shows of a job. */
export type ReportJob = Pick<
  JobRow,
  "key" | "job_id" | "label" | "state" | "reason" | "request" | "cost" | "task_id"
>;

/** What a report shows of an output. */
export type ReportOutput = Pick<
  OutputRow,
  | "idx"
  | "state"
  | "path"
  | "bytes"
  | "sha256"
  | "content_type"
  | "check_state"
  | "checks"
  | "thumbnail"
  | "poster"
>;

/** One output of a run with its job, as reports read them. */
export interface ReportRow {
  job: ReportJob;
  /** Null for a job that has no outputs recorded. */
  output: ReportOutput | null;
}

/** A job as a run first records it. */
export interface NewJob {
  key: string;
  jobId: string;
  label: string;
  family: string | null;
  lane: string;
  endpoint: string;
  request: string;
  upstreamKey: string | null;
  estimatedCost: number | null;
  /** A stand-in for the dependants of a failed upstream. */
  placeholder?: boolean;
}

/** Columns a transition may set besides the state. */
export type JobPatch = Partial<
  Pick<
    JobRow,
    | "task_id"
    | "attempts"
    | "unknown_submits"
    | "claimed_by"
    | "progress"
    | "polls"
    | "next_poll_at"
    | "cost"
    | "reason"
    | "submitted_at"
    | "started_at"
    | "completed_at"
    | "done_at"
    | "run_id"
  >
>;

const PATCH_COLUMNS = new Set<string>([
  "task_id",
  "attempts",
  "unknown_submits",
  "claimed_by",
  "progress",
  "polls",
  "next_poll_at",
  "cost",
  "reason",
  "submitted_at",
  "started_at",
  "completed_at",
  "done_at",
  "run_id",
]);

/**
 * Switches to WAL. SQLite answers this pragma "busy" at once, without waiting, while another
 * process is creating the same new database, so it is retried for a while.
 */
function enableWal(db: Database.Database): void {
  for (let attempt = 0; ; attempt++) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || attempt >= 200) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

export class Store {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #transaction: (fn: () => unknown) => unknown;

  private constructor(db: Database.Database) {
    this.db = db;
    // One wrapper for all transactions; better-sqlite3 makes nested calls savepoints.
    const transaction = db.transaction((fn: () => unknown) => fn());
    // Immediate: take the write lock up front, so a read-then-write transaction waits for
    // another gwrun on the same file instead of failing with a stale snapshot.
    this.#transaction = transaction.immediate;
  }

  /** Opens (creating and migrating) the database at `file`. */
  static open(file: string): Store {
    if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const db = new Database(file);
    // Another gwrun on the same file waits for its turn instead of failing.
    db.pragma("busy_timeout = 10000");
    enableWal(db);
    // Durable at every commit point of WAL, without an fsync per transaction.
    db.pragma("synchronous = NORMAL");
    // Checkpoint the log less often: a run commits at every step of every job.
    db.pragma("wal_autocheckpoint = 10000");
    migrate(db);
    return new Store(db);
  }

  close(): void {
    this.db.close();
  }

  #sql(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return this.#transaction(fn) as T;
  }

  // --- runs

  createRun(
    run: Omit<RunRow, "id" | "status" | "exit_code" | "finished_at" | "tick"> & { tick?: number },
  ): number {
    const result = this.#sql(
      `INSERT INTO runs (name, manifest_path, manifest_text, base_url, output_dir, status, started_at, tick)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?)`,
    ).run(
      run.name,
      run.manifest_path,
      run.manifest_text,
      run.base_url,
      run.output_dir,
      run.started_at,
      run.tick ?? null,
    );
    return Number(result.lastInsertRowid);
  }

  finishRun(id: number, status: string, exitCode: number, now: number): void {
    this.#sql("UPDATE runs SET status = ?, exit_code = ?, finished_at = ? WHERE id = ?").run(
      status,
      exitCode,
      now,
      id,
    );
  }

  run(id: number): RunRow | undefined {
    return this.#sql("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
  }

  /** The latest run, of the manifest named `name` when given. */
  latestRun(name?: string): RunRow | undefined {
    return (
      name === undefined
        ? this.#sql("SELECT * FROM runs ORDER BY id DESC LIMIT 1").get()
        : this.#sql("SELECT * FROM runs WHERE name = ? ORDER BY id DESC LIMIT 1").get(name)
    ) as RunRow | undefined;
  }

  runs(limit: number): RunRow[] {
    return this.#sql("SELECT * FROM runs ORDER BY id DESC LIMIT ?").all(limit) as RunRow[];
  }

  // --- jobs

  /**
   * Records jobs for a run: new keys are inserted pending; known keys join the run as they
   * are. Returns the keys that were new.
   */
  addJobs(runId: number, jobs: readonly NewJob[], now: number): Set<string> {
    const added = new Set<string>();
    const insert = this.#sql(
      `INSERT OR IGNORE INTO jobs (key, run_id, job_id, label, family, lane, endpoint, request, upstream_key,
         state, estimated_cost, created_at, updated_at, placeholder)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?)`,
    );
    const adopt = this.#sql("UPDATE jobs SET run_id = ?, job_id = ?, label = ? WHERE key = ?");
    const link = this.#sql("INSERT OR IGNORE INTO run_jobs (run_id, key) VALUES (?, ?)");
    this.transaction(() => {
      for (const job of jobs) {
        const inserted = insert.run(
          job.key,
          runId,
          job.jobId,
          job.label,
          job.family,
          job.lane,
          job.endpoint,
          job.request,
          job.upstreamKey,
          job.estimatedCost,
          now,
          now,
          job.placeholder === true ? 1 : 0,
        ).changes;
        if (inserted === 0) adopt.run(runId, job.jobId, job.label, job.key);
        else added.add(job.key);
        link.run(runId, job.key);
      }
    });
    return added;
  }

  job(key: string): JobRow | undefined {
    return this.#sql("SELECT * FROM jobs WHERE key = ?").get(key) as JobRow | undefined;
  }

  /** The jobs of a run, in the order they were recorded. */
  jobsOf(runId: number): JobRow[] {
    return this.#sql(
      "SELECT jobs.* FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key WHERE run_jobs.run_id = ? ORDER BY jobs.rowid",
    ).all(runId) as JobRow[];
  }

  /** Jobs fed by an upstream job's outputs. */
  dependantsOf(upstreamKey: string): JobRow[] {
    return this.#sql("SELECT * FROM jobs WHERE upstream_key = ?").all(upstreamKey) as JobRow[];
  }

  /**
   * Moves a job to `to` if it is in one of `from` (compare-and-set); false when another
   * process or step moved it first. Throws on a move the state graph does not allow.
   */
  move(
    key: string,
    from: JobState | readonly JobState[],
    to: JobState,
    patch: JobPatch,
    now: number,
  ): boolean {
    const sources = typeof from === "string" ? [from] : from;
    for (const source of sources) {
      if (!canMove(source, to)) throw new Error(`job state ${source} → ${to} is not allowed`);
    }
    const columns = Object.keys(patch).filter((column) => {
      if (!PATCH_COLUMNS.has(column)) throw new Error(`unknown job column ${column}`);
      return true;
    });
    const sql = `UPDATE jobs SET state = ?, updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")}
       WHERE key = ? AND state IN (${sources.map(() => "?").join(", ")})`;
    const values = columns.map((column) => patch[column as keyof JobPatch] ?? null);
    const update = this.#sql(sql);
    const log = this.#sql(
      "INSERT INTO events (run_id, at, job_key, type, data) SELECT run_id, ?, key, ?, ? FROM jobs WHERE key = ?",
    );
    // The move and its event commit together.
    return this.transaction(() => {
      const changed = update.run(to, now, ...values, key, ...sources).changes === 1;
      if (changed) log.run(now, `job:${to}`, patch.reason ?? null, key);
      return changed;
    });
  }

  /**
   * Records a poll that found no change of state (progress, next poll time); false when the
   * job is no longer running (another process moved it on).
   */
  notePoll(key: string, patch: Pick<JobPatch, "progress" | "polls" | "next_poll_at">): boolean {
    return (
      this.#sql(
        "UPDATE jobs SET progress = ?, polls = ?, next_poll_at = ? WHERE key = ? AND state IN ('submitted', 'processing')",
      ).run(patch.progress ?? null, patch.polls ?? 0, patch.next_poll_at ?? null, key).changes === 1
    );
  }

  /** Appends a run-level event. */
  logEvent(runId: number, type: string, data: unknown, now: number): void {
    this.#sql("INSERT INTO events (run_id, at, type, data) VALUES (?, ?, ?, ?)").run(
      runId,
      now,
      type,
      JSON.stringify(data),
    );
  }

  // --- outputs

  /** Records the output links of a completed job (kept when already recorded). */
  setOutputs(
    key: string,
    links: readonly { url: string | null; expiresAt: number | null }[],
  ): void {
    const insert = this.#sql(
      "INSERT OR IGNORE INTO outputs (job_key, idx, url, expires_at, state) VALUES (?, ?, ?, ?, 'pending')",
    );
    links.forEach((link, idx) => {
      insert.run(key, idx, link.url, link.expiresAt);
    });
  }

  outputsOf(key: string): OutputRow[] {
    return this.#sql("SELECT * FROM outputs WHERE job_key = ? ORDER BY idx").all(
      key,
    ) as OutputRow[];
  }

  markOutput(key: string, idx: number, patch: Partial<Omit<OutputRow, "job_key" | "idx">>): void {
    const columns = Object.keys(patch);
    this.#sql(
      `UPDATE outputs SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE job_key = ? AND idx = ?`,
    ).run(...columns.map((c) => patch[c as keyof typeof patch] ?? null), key, idx);
  }

  /**
   * Every job of a run with its outputs (one row per output, one for a job without any), the
   * tasks of one manifest job together, in the order they were recorded; read one at a time,
   * so a report of 100k jobs stays small.
   * No other statement may run on this store until the iteration ends.
   */
  *reportRows(runId: number): Generator<ReportRow> {
    // Only the columns a report shows: sorting wide rows is most of the cost at 100k jobs.
    const rows = this.#sql(
      `SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason, jobs.request, jobs.cost,
         jobs.task_id, outputs.idx, outputs.state AS output_state, outputs.path, outputs.bytes,
         outputs.sha256, outputs.content_type, outputs.check_state, outputs.checks,
         outputs.thumbnail, outputs.poster
       FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
       LEFT JOIN outputs ON outputs.job_key = jobs.key
       WHERE run_jobs.run_id = ?
       ORDER BY min(jobs.rowid) OVER (PARTITION BY jobs.job_id), jobs.rowid, outputs.idx`,
    ).iterate(runId) as IterableIterator<ReportJob & ReportOutput & { output_state: string }>;
    for (const row of rows) {
      const job: ReportJob = {
        key: row.key,
        job_id: row.job_id,
        label: row.label,
        state: row.state,
        reason: row.reason,
        request: row.request,
        cost: row.cost,
        task_id: row.task_id,
      };
      yield {
        job,
        output:
          row.idx === null
            ? null
            : {
                idx: row.idx,
                state: row.output_state as OutputRow["state"],
                path: row.path,
                bytes: row.bytes,
                sha256: row.sha256,
                content_type: row.content_type,
                check_state: row.check_state,
                checks: row.checks,
                thumbnail: row.thumbnail,
                poster: row.poster,
              },
      };
    }
  }

  /** A run's jobs that ended without their outputs (failed, rejected, ...), read one at a time. */
  failuresOf(
    runId: number,
  ): IterableIterator<Pick<JobRow, "key" | "job_id" | "label" | "state" | "reason">> {
    return this.#sql(
      `SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason
       FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
       WHERE run_jobs.run_id = ? AND jobs.state IN ('failed', 'rejected', 'expired', 'cancelled', 'skipped')
       ORDER BY jobs.rowid`,
    ).iterate(runId) as IterableIterator<
      Pick<JobRow, "key" | "job_id" | "label" | "state" | "reason">
    >;
  }

  /** Jobs of a run by state, outputs and spend, for a report's header. */
  runSummary(runId: number): { states: Record<string, number>; outputs: number; spent: number } {
    const states: Record<string, number> = {};
    let spent = 0;
    const byState = this.#sql(
      `SELECT jobs.state AS state, count(*) AS n, sum(coalesce(jobs.cost, 0)) AS spent
       FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key WHERE run_jobs.run_id = ? GROUP BY jobs.state`,
    ).all(runId) as { state: string; n: number; spent: number }[];
    for (const row of byState) {
      states[row.state] = row.n;
      spent += row.spent;
    }
    const outputs = this.#sql(
      `SELECT count(*) AS n FROM run_jobs JOIN outputs ON outputs.job_key = run_jobs.key
       WHERE run_jobs.run_id = ? AND outputs.state = 'downloaded'`,
    ).get(runId) as { n: number };
    return { states, outputs: outputs.n, spent: Math.round(spent * 1e6) / 1e6 };
  }

  /** Forgets the outputs of a job that is redone. */
  clearOutputs(key: string): void {
    this.#sql("DELETE FROM outputs WHERE job_key = ?").run(key);
  }

  // --- gateway

  learnedRate(baseUrl: string): number | undefined {
    const row = this.#sql("SELECT submit_rate FROM gateway_state WHERE base_url = ?").get(
      baseUrl,
    ) as { submit_rate: number | null } | undefined;
    return row?.submit_rate ?? undefined;
  }

  saveLearnedRate(baseUrl: string, rate: number): void {
    this.#sql(
      "INSERT INTO gateway_state (base_url, submit_rate) VALUES (?, ?) ON CONFLICT(base_url) DO UPDATE SET submit_rate = excluded.submit_rate",
    ).run(baseUrl, rate);
  }
}
