import { checkedMove, type MovePatch } from "../move.js";
import type { NewTask, OutputRow, TaskRow, TextAnswerRow } from "../rows.js";
import type { TaskState } from "../states.js";
import type { Transition } from "../transition-patches.js";
import { varsColumn } from "../variables.js";
import { changes, row, rows, type Sql, TASK_COLUMNS } from "./db.js";
import { withScope } from "./scope.js";

/** Task reads, recording tasks, and the one guarded move every named transition is made of. */

/**
 * Moves a task to `to` if it is in one of `from` (compare-and-set), logging the move; false
 * when another process or step moved it first. Throws on a move the state graph forbids. The
 * update and its event are one statement, so they commit together even outside a transaction.
 */
export async function move(
  sql: Sql,
  key: string,
  from: readonly TaskState[],
  to: TaskState,
  patch: MovePatch,
  now: number,
): Promise<boolean> {
  const { set, values } = moveSet(from, to, patch, 6);
  const moved = await changes(
    sql,
    `WITH moved AS (
       UPDATE jobs SET state = $1, updated_at = $2${set}
       WHERE key = $3 AND state = ANY($4::text[]) RETURNING run_id, key)
     INSERT INTO events (run_id, at, job_key, type, data)
     SELECT run_id, $2, key, 'job:' || $1, $5 FROM moved`,
    [to, now, key, [...from], patch.reason ?? null, ...values],
  );
  return moved === 1;
}

/**
 * A guarded move's columns for its SET clause, after the state graph allowed it: each column
 * of `patch` bound to a parameter from `$first` on (`, column = $n`), and the values in order.
 */
export function moveSet(
  from: readonly TaskState[],
  to: TaskState,
  patch: MovePatch,
  first: number,
): { set: string; values: ReturnType<typeof checkedMove>["values"] } {
  const { columns, values } = checkedMove(from, to, patch);
  return { set: columns.map((column, i) => `, ${column} = $${i + first}`).join(""), values };
}

/**
 * Locks the tasks a transaction will move, in key order, before it moves any: two processes
 * moving the same tasks (a claim of one batch, in two orders) then queue one behind the other
 * instead of deadlocking. The guarded moves after it decide what each one may still do.
 */
export async function lockTasks(sql: Sql, keys: readonly string[]): Promise<void> {
  if (keys.length > 1)
    await sql.query("SELECT key FROM jobs WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE", [
      [...keys],
    ]);
}

/** Tasks per statement when recording many. */
const BATCH = 5000;

export async function recordTasks(
  sql: Sql,
  runId: number,
  tasks: readonly NewTask[],
  now: number,
): Promise<Set<string>> {
  const added = new Set<string>();
  for (let start = 0; start < tasks.length; start += BATCH) {
    const batch = tasks.slice(start, start + BATCH);
    const column = <T>(pick: (task: NewTask) => T) => batch.map(pick);
    await lockTasks(
      sql,
      column((task) => task.key),
    );
    const inserted = await rows<{ key: string }>(
      sql,
      `INSERT INTO jobs (key, run_id, job_id, label, family, lane, endpoint, request, upstream_key,
         state, estimated_cost, created_at, updated_at, placeholder, vars, repeat_index, take)
       SELECT t.key, $1, t.job_id, t.label, t.family, t.lane, t.endpoint, t.request, t.upstream_key,
         'pending', t.estimated_cost, $2, $2, t.placeholder, t.vars, t.repeat_index, t.take
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::text[], $10::text[], $11::float8[], $12::int[], $13::text[], $14::int[], $15::int[])
         WITH ORDINALITY AS t(key, job_id, label, family, lane, endpoint, request, upstream_key,
           estimated_cost, placeholder, vars, repeat_index, take, n)
       ORDER BY t.n
       ON CONFLICT (key) DO NOTHING RETURNING key`,
      [
        runId,
        now,
        column((task) => task.key),
        column((task) => task.jobId),
        column((task) => task.label),
        column((task) => task.family),
        column((task) => task.lane),
        column((task) => task.endpoint),
        column((task) => task.request),
        column((task) => task.upstreamKey),
        column((task) => task.estimatedCost),
        column((task) => (task.placeholder === true ? 1 : 0)),
        column(varsColumn),
        column((task) => task.repeatIndex ?? 0),
        column((task) => task.take ?? 1),
      ],
    );
    const fresh = new Set(inserted.map((found) => found.key));
    for (const key of fresh) added.add(key);
    const known = batch.filter((task) => !fresh.has(task.key));
    // A known key joins this run as it is: only its run and names (label, variables) change.
    if (known.length > 0)
      await sql.query(
        `UPDATE jobs SET run_id = $1, job_id = t.job_id, label = t.label,
           vars = CASE WHEN t.has_vars THEN t.vars ELSE jobs.vars END
         FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[])
           AS t(key, job_id, label, has_vars, vars)
         WHERE jobs.key = t.key`,
        [
          runId,
          known.map((task) => task.key),
          known.map((task) => task.jobId),
          known.map((task) => task.label),
          known.map((task) => task.vars !== undefined),
          known.map(varsColumn),
        ],
      );
    await sql.query(
      `INSERT INTO run_jobs (run_id, key) SELECT $1, key FROM unnest($2::text[]) AS t(key)
       ON CONFLICT DO NOTHING`,
      [runId, column((task) => task.key)],
    );
  }
  return added;
}

export function task(sql: Sql, key: string): Promise<TaskRow | undefined> {
  return row<TaskRow>(sql, `SELECT ${TASK_COLUMNS} FROM jobs WHERE key = $1`, [key]);
}

/**
 * A task and its outputs in one read (a download job's first look), and whether another task
 * goes by its label (only then may a name of its files be another's: `freeOutputPath`).
 */
export async function taskWithOutputs(
  sql: Sql,
  key: string,
): Promise<{ task: TaskRow; outputs: OutputRow[]; labelShared: boolean } | undefined> {
  const found = await row<TaskRow & { task_outputs: OutputRow[]; label_shared: boolean }>(
    sql,
    `SELECT ${TASK_COLUMNS},
       COALESCE((SELECT json_agg(o ORDER BY o.idx) FROM outputs o WHERE o.job_key = jobs.key), '[]')
         AS task_outputs,
       EXISTS (SELECT 1 FROM jobs other WHERE other.job_id = jobs.job_id
         AND other.label = jobs.label AND other.key <> jobs.key) AS label_shared
     FROM jobs WHERE key = $1`,
    [key],
  );
  if (found === undefined) return undefined;
  const { task_outputs: outputs, label_shared: labelShared, ...task } = found;
  return { task, outputs, labelShared };
}

export function tasksOf(sql: Sql, runId: number): Promise<TaskRow[]> {
  return rows<TaskRow>(
    sql,
    `SELECT ${TASK_COLUMNS} FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
     WHERE run_jobs.run_id = $1 ORDER BY jobs.place`,
    [runId],
  );
}

/** A manifest job's current tasks in an output folder: per label its take (`withScope`). */
export function currentTasksOf(sql: Sql, outputDir: string, jobId: string): Promise<TaskRow[]> {
  const scope = withScope({ folder: outputDir });
  return rows<TaskRow>(
    sql,
    `${scope.sql} SELECT ${TASK_COLUMNS} FROM scope JOIN jobs ON jobs.key = scope.key
     WHERE jobs.job_id = $2 ORDER BY scope.place`,
    [scope.param, jobId],
  );
}

export async function tasksByKey(sql: Sql, keys: readonly string[]): Promise<Map<string, TaskRow>> {
  const found = new Map<string, TaskRow>();
  for (let start = 0; start < keys.length; start += BATCH) {
    const page = keys.slice(start, start + BATCH);
    const list = await rows<TaskRow>(
      sql,
      `SELECT ${TASK_COLUMNS} FROM jobs WHERE key = ANY($1::text[])`,
      [page],
    );
    for (const found_ of list) found.set(found_.key, found_);
  }
  return found;
}

export function dependantsOf(sql: Sql, upstreamKey: string): Promise<TaskRow[]> {
  return rows<TaskRow>(
    sql,
    `SELECT ${TASK_COLUMNS} FROM jobs WHERE upstream_key = $1 ORDER BY place`,
    [upstreamKey],
  );
}

export function outputsOf(sql: Sql, key: string): Promise<OutputRow[]> {
  return rows<OutputRow>(sql, "SELECT * FROM outputs WHERE job_key = $1 ORDER BY idx", [key]);
}

export function textAnswer(sql: Sql, key: string): Promise<TextAnswerRow | undefined> {
  return row<TextAnswerRow>(sql, "SELECT * FROM text_answers WHERE job_key = $1", [key]);
}

/**
 * Makes named transitions on many tasks, one statement for each kind (the same states and
 * columns), each logged as `move` logs it: the keys of the tasks moved. A poll round of fifty
 * tasks made a hundred round trips one at a time.
 */
export async function moveMany(
  sql: Sql,
  moves: readonly { key: string; transition: Transition }[],
  now: number,
): Promise<Set<string>> {
  const kinds = new Map<string, { transition: Transition; columns: string[]; given: object[] }>();
  for (const { key, transition } of moves) {
    const { columns, values } = checkedMove(transition.from, transition.to, transition.patch);
    const kind = JSON.stringify([transition.from, transition.to, columns]);
    const entry = kinds.get(kind) ?? { transition, columns, given: [] };
    entry.given.push(Object.fromEntries([["key", key], ...columns.map((c, i) => [c, values[i]])]));
    kinds.set(kind, entry);
  }
  const moved = new Set<string>();
  for (const { transition, columns, given } of kinds.values()) {
    const set = columns.map((column) => `, ${column} = g.${column}`).join("");
    const reason = columns.includes("reason") ? "g.reason" : "NULL";
    const found = await rows<{ key: string }>(
      sql,
      `WITH moved AS (
         UPDATE jobs j SET state = $1, updated_at = $2${set}
         FROM jsonb_populate_recordset(NULL::jobs, $4::jsonb) g
         WHERE j.key = g.key AND j.state = ANY($3::text[])
         RETURNING j.run_id, j.key, ${reason} AS reason),
       logged AS (
         INSERT INTO events (run_id, at, job_key, type, data)
         SELECT run_id, $2, key, 'job:' || $1, reason FROM moved)
       SELECT key FROM moved`,
      [transition.to, now, [...transition.from], JSON.stringify(given)],
    );
    for (const { key } of found) moved.add(key);
  }
  return moved;
}

/** Makes one named transition (`../transition-patches.ts`) on the task `key`. */
export function moveBy(
  sql: Sql,
  key: string,
  transition: Transition,
  now: number,
): Promise<boolean> {
  return move(sql, key, transition.from, transition.to, transition.patch, now);
}
