import { checkedMove } from "../move.js";
import type { BatchKind, BatchOf, BatchResult, Executor, Program, Step } from "../program.js";
import { NEW_TASK_COLUMNS, NEW_TASK_NAMES } from "../queries/tasks.js";
import type { Transition } from "../transition-patches.js";
import { varsColumn } from "../variables.js";
import type { SqliteDb } from "./db.js";
import type { GroupCommit } from "./group-commit.js";
import { storeUnusable } from "./unusable.js";

/**
 * How SQLite runs a program: synchronously, inside one transaction for a write (or the
 * turn's, for the transitions every task makes: `GroupCommit`). Its batches are row loops, as
 * cheap here as a set statement (no round trips), and locks are nothing to take: a write
 * transaction holds the whole database. A failure says which file and what to do (a disk
 * that fills mid-run, a file turned read-only). `steps` runs each step of a program: the
 * executor's own, or a wrapper of it that sees every statement (and may fail it as SQLite
 * would).
 */
export function sqliteExecutor(
  s: SqliteDb,
  group: GroupCommit,
  file: string,
  steps: StepRunner = runStep,
): Executor {
  return {
    async execute(commit, program) {
      try {
        const run = () => runSync(s, program(), steps);
        if (commit.perTask) return await group.write(run);
        return commit.mode === "read" ? run() : s.transaction(run);
      } catch (error) {
        throw storeUnusable(error, file) ?? error;
      }
    },
  };
}

/** Runs one step of a program on the database; what the step yields back to the program. */
export type StepRunner = (s: SqliteDb, given: Step) => unknown;

function runSync<T>(s: SqliteDb, program: Program<T>, steps: StepRunner): T {
  let next = program.next();
  while (!next.done) next = program.next(steps(s, next.value));
  return next.value;
}

/** The executor's own step: its statement or batch, run on `s`. */
export function runStep(s: SqliteDb, given: Step): unknown {
  switch (given.kind) {
    case "rows":
      return s.rows(given.sql, given.params);
    case "changes":
      return s.changes(given.sql, given.params);
    case "move":
      return move(s, given.key, given.transition, given.now);
    case "lock":
    case "lockName":
      return undefined;
    default:
      return (BATCHES[given.kind] as (s: SqliteDb, batch: typeof given) => unknown)(s, given);
  }
}

/**
 * Moves a task if it is in one of `from` (compare-and-set), logging the move; false when
 * another process or step moved it first. The event reads the run back by key: with
 * RETURNING, the update cost about four times as much.
 */
function move(s: SqliteDb, key: string, { from, to, patch }: Transition, now: number): boolean {
  const { columns, values } = checkedMove(from, to, patch);
  const update = s.sql(
    `UPDATE jobs SET state = ?, updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")}
     WHERE key = ? AND state IN (${from.map(() => "?").join(", ")})`,
  );
  // The move and its event commit together.
  return s.transaction(() => {
    const moved = update.run(to, now, ...values, key, ...from).changes === 1;
    if (moved)
      s.sql(
        "INSERT INTO events (run_id, at, job_key, type, data) SELECT run_id, ?, key, ?, ? FROM jobs WHERE key = ?",
      ).run(now, `job:${to}`, patch.reason ?? null, key);
    return moved;
  });
}

type Batches = { [K in BatchKind]: (s: SqliteDb, batch: BatchOf<K>) => BatchResult<K> };

const BATCHES: Batches = {
  moves: (s, { moves, now }) =>
    new Set(moves.filter((one) => move(s, one.key, one.transition, now)).map((one) => one.key)),
  insertTasks: (s, { runId, tasks, now }) => {
    const insert = s.sql(
      `INSERT OR IGNORE INTO jobs (run_id, state, created_at, updated_at, ${NEW_TASK_NAMES})
       VALUES (?, 'pending', ?, ?, ${NEW_TASK_COLUMNS.map(() => "?").join(", ")})`,
    );
    // A known key joins this run as it is: only its run and names (label, variables) change.
    const adopt = s.sql(
      "UPDATE jobs SET run_id = ?, job_id = ?, label = ?, vars = CASE WHEN ? THEN ? ELSE vars END WHERE key = ?",
    );
    const request = s.sql("INSERT OR IGNORE INTO task_requests (key, request) VALUES (?, ?)");
    const link = s.sql("INSERT OR IGNORE INTO run_jobs (run_id, key) VALUES (?, ?)");
    const added = new Set<string>();
    for (const task of tasks) {
      const values = NEW_TASK_COLUMNS.map(([, , value]) => value(task));
      if (insert.run(runId, now, now, ...values).changes === 1) {
        request.run(task.key, task.request);
        added.add(task.key);
      } else {
        const vars = task.vars === undefined ? 0 : 1;
        adopt.run(runId, task.jobId, task.label, vars, varsColumn(task), task.key);
      }
      link.run(runId, task.key);
    }
    return added;
  },
  notes: (s, { notes }) => {
    const note = s.sql(
      "UPDATE jobs SET progress = ?, polls = ?, next_poll_at = ? WHERE key = ? AND state IN ('submitted', 'processing')",
    );
    const noted = notes.filter(
      (one) => note.run(one.progress, one.polls, one.nextPollAt, one.key).changes === 1,
    );
    return new Set(noted.map((one) => one.key));
  },
  insertOutputs: (s, { outputs }) => {
    const insert = s.sql(
      "INSERT OR IGNORE INTO outputs (job_key, idx, url, expires_at, state) VALUES (?, ?, ?, ?, 'pending')",
    );
    for (const { key, links } of outputs)
      for (const [idx, link] of links.entries()) insert.run(key, idx, link.url, link.expiresAt);
  },
  markDownloads: (s, { files, move: allDownloaded, now }) => {
    const mark = s.sql(
      `UPDATE outputs SET state = 'downloaded', path = ?, bytes = ?, sha256 = ?, content_type = ?,
         downloaded_at = ?
       WHERE job_key = ? AND idx = ? AND state = 'pending'`,
    );
    const waiting = s
      .sql("SELECT count(*) FROM outputs WHERE job_key = ? AND state <> 'downloaded'")
      .pluck();
    const moved = new Set<string>();
    const marked = files.map((file) => {
      const { key } = file.task;
      const at = file.downloadedAt ?? now;
      const values = [file.path, file.bytes, file.sha256, file.contentType, at, key, file.idx];
      if (mark.run(...values).changes === 0) return false;
      if (waiting.get(key) === 0 && move(s, key, allDownloaded, now)) moved.add(key);
      return true;
    });
    return { marked, moved };
  },
  keepChecks: (s, { kept, passed, move: done, now }) => {
    const keep = s.sql(
      "UPDATE outputs SET check_state = ?, checks = ?, thumbnail = ?, poster = ? WHERE job_key = ? AND idx = ?",
    );
    for (const one of kept)
      keep.run(one.checkState, one.checks, one.thumbnail, one.poster, one.key, one.idx);
    return new Set(passed.filter((key) => move(s, key, done, now)));
  },
  copies: (s, { copies }) => {
    const insert = s.sql(
      `INSERT OR REPLACE INTO output_copies (job_key, idx, output_dir, path, thumbnail, poster, copied_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const copy of copies)
      insert.run(
        copy.job_key,
        copy.idx,
        copy.output_dir,
        copy.path,
        copy.thumbnail,
        copy.poster,
        copy.copied_at,
      );
  },
  links: (s, { key, links }) => {
    const update = s.sql(
      "UPDATE outputs SET url = ?, expires_at = ? WHERE job_key = ? AND idx = ?",
    );
    for (const [idx, link] of links.entries()) update.run(link.url, link.expiresAt, key, idx);
  },
};
