import { checkedMove, type MovePatch } from "../move.js";
import type { NewTask, OutputRow, TaskRow, TextAnswerRow } from "../rows.js";
import type { TaskState } from "../states.js";
import type { Transition } from "../transition-patches.js";
import { varsColumn } from "../variables.js";
import type { SqliteDb } from "./db.js";
import { withScope } from "./scope.js";

/** Task reads, recording tasks, and the one guarded move every named transition is made of. */

/**
 * Moves a task to `to` if it is in one of `from` (compare-and-set), logging the move; false
 * when another process or step moved it first. Throws on a move the state graph forbids.
 */
export function move(
  s: SqliteDb,
  key: string,
  from: readonly TaskState[],
  to: TaskState,
  patch: MovePatch,
  now: number,
): boolean {
  const { columns, values } = checkedMove(from, to, patch);
  const update = s.sql(
    `UPDATE jobs SET state = ?, updated_at = ?${columns.map((c) => `, ${c} = ?`).join("")}
     WHERE key = ? AND state IN (${from.map(() => "?").join(", ")})`,
  );
  // The event reads the run back by key: with RETURNING, the update cost about four times as much.
  const moveAndLog = () => {
    const moved = update.run(to, now, ...values, key, ...from).changes === 1;
    if (moved)
      s.sql(
        "INSERT INTO events (run_id, at, job_key, type, data) SELECT run_id, ?, key, ?, ? FROM jobs WHERE key = ?",
      ).run(now, `job:${to}`, patch.reason ?? null, key);
    return moved;
  };
  // The move and its event commit together.
  return s.transaction(moveAndLog);
}

export function recordTasks(
  s: SqliteDb,
  runId: number,
  tasks: readonly NewTask[],
  now: number,
): Set<string> {
  const added = new Set<string>();
  const insert = s.sql(
    `INSERT OR IGNORE INTO jobs (key, run_id, job_id, label, family, lane, endpoint, request, upstream_key,
       state, estimated_cost, created_at, updated_at, placeholder, vars, repeat_index, take)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)`,
  );
  // A known key joins this run as it is: only its run and names (label, variables) change.
  const adopt = s.sql(
    "UPDATE jobs SET run_id = ?, job_id = ?, label = ?, vars = CASE WHEN ? THEN ? ELSE vars END WHERE key = ?",
  );
  const link = s.sql("INSERT OR IGNORE INTO run_jobs (run_id, key) VALUES (?, ?)");
  s.transaction(() => {
    for (const task of tasks) {
      const inserted = insert.run(
        task.key,
        runId,
        task.jobId,
        task.label,
        task.family,
        task.lane,
        task.endpoint,
        task.request,
        task.upstreamKey,
        task.estimatedCost,
        now,
        now,
        task.placeholder === true ? 1 : 0,
        varsColumn(task),
        task.repeatIndex ?? 0,
        task.take ?? 1,
      ).changes;
      if (inserted === 0)
        adopt.run(
          runId,
          task.jobId,
          task.label,
          task.vars === undefined ? 0 : 1,
          varsColumn(task),
          task.key,
        );
      else added.add(task.key);
      link.run(runId, task.key);
    }
  });
  return added;
}

export function task(s: SqliteDb, key: string): TaskRow | undefined {
  return s.rows<TaskRow>("SELECT * FROM jobs WHERE key = ?", key)[0];
}

export function tasksOf(s: SqliteDb, runId: number): TaskRow[] {
  return s.rows<TaskRow>(
    "SELECT jobs.* FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key WHERE run_jobs.run_id = ? ORDER BY jobs.rowid",
    runId,
  );
}

/** A manifest job's current tasks in an output folder: per label its take (`withScope`). */
export function currentTasksOf(s: SqliteDb, outputDir: string, jobId: string): TaskRow[] {
  const { sql, param } = withScope({ folder: outputDir });
  return s.rows<TaskRow>(
    `${sql} SELECT jobs.* FROM scope JOIN jobs ON jobs.key = scope.key
     WHERE jobs.job_id = ? ORDER BY scope.place`,
    param,
    jobId,
  );
}

export function tasksByKey(s: SqliteDb, keys: readonly string[]): Map<string, TaskRow> {
  const found = new Map<string, TaskRow>();
  const select = "SELECT jobs.* FROM json_each(?) AS wanted JOIN jobs ON jobs.key = wanted.value";
  // Pages keep each statement's parameter small.
  for (let start = 0; start < keys.length; start += 5000) {
    const page = JSON.stringify(keys.slice(start, start + 5000));
    for (const row of s.rows<TaskRow>(select, page)) found.set(row.key, row);
  }
  return found;
}

export function dependantsOf(s: SqliteDb, upstreamKey: string): TaskRow[] {
  return s.rows<TaskRow>("SELECT * FROM jobs WHERE upstream_key = ?", upstreamKey);
}

export function outputsOf(s: SqliteDb, key: string): OutputRow[] {
  return s.rows<OutputRow>("SELECT * FROM outputs WHERE job_key = ? ORDER BY idx", key);
}

export function textAnswer(s: SqliteDb, key: string): TextAnswerRow | undefined {
  return s.sql("SELECT * FROM text_answers WHERE job_key = ?").get(key) as
    | TextAnswerRow
    | undefined;
}

/** Makes one named transition (`../transition-patches.ts`) on the task `key`. */
export function moveBy(s: SqliteDb, key: string, transition: Transition, now: number): boolean {
  return move(s, key, transition.from, transition.to, transition.patch, now);
}
