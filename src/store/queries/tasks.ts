import type { TaskPageOf } from "../port.js";
import { first, type Program, read, rows } from "../program.js";
import type { NewTask, OutputCopy, OutputRow, TakeRow, TaskRow, TextAnswerRow } from "../rows.js";
import { varsColumn } from "../variables.js";
import { withScope } from "./scope.js";

/** Reading tasks, their outputs, copies and answers. */

/**
 * A task's request, kept beside its row (`task_requests`): rows stay narrow for the reads of a
 * whole run, and a move does not rewrite megabytes of inlined pictures.
 */
export const TASK_REQUEST =
  "(SELECT task_requests.request FROM task_requests WHERE task_requests.key = jobs.key)";

/** A task row's columns, qualified by `jobs.` (PostgreSQL's table has columns of its own). */
export const TASK_COLUMNS = [
  ...`key run_id job_id label family lane endpoint upstream_key state task_id attempts
  unknown_submits claimed_by progress polls next_poll_at estimated_cost cost reason created_at
  submitted_at started_at completed_at done_at updated_at placeholder vars repeat_index take
  paid_run`
    .split(/\s+/)
    .map((column) => `jobs.${column}`),
  `${TASK_REQUEST} AS request`,
].join(", ");

/**
 * The columns a task is first recorded with besides its run, state (pending) and times, as
 * both stores insert them; and PostgreSQL's type of each, for a batch of them. Its request
 * goes beside it (`task_requests`), with the same key.
 */
export const NEW_TASK_COLUMNS: readonly [string, string, (task: NewTask) => unknown][] = [
  ["key", "text", (task) => task.key],
  ["job_id", "text", (task) => task.jobId],
  ["label", "text", (task) => task.label],
  ["family", "text", (task) => task.family],
  ["lane", "text", (task) => task.lane],
  ["endpoint", "text", (task) => task.endpoint],
  ["upstream_key", "text", (task) => task.upstreamKey],
  ["estimated_cost", "float8", (task) => task.estimatedCost],
  ["placeholder", "int", (task) => (task.placeholder === true ? 1 : 0)],
  ["vars", "text", varsColumn],
  ["repeat_index", "int", (task) => task.repeatIndex ?? 0],
  ["take", "int", (task) => task.take ?? 1],
];

/** Their names, in order. */
export const NEW_TASK_NAMES = NEW_TASK_COLUMNS.map(([name]) => name).join(", ");

/** Keys per statement when reading many. */
const PAGE = 5000;

/**
 * Pending tasks that go as soon as their turn comes: no stand-in, and not a first take of a
 * `from:` task (its upstream's take-on binds and starts it). Per capacity lane: text shares
 * the image lane.
 */
const QUEUED = `jobs.state = 'pending' AND jobs.placeholder = 0
  AND NOT (jobs.upstream_key IS NOT NULL AND jobs.take = 1)`;
const PAGE_FILTER: Record<TaskPageOf, string> = {
  all: "",
  "image-queue": `AND ${QUEUED} AND jobs.lane <> 'video'`,
  "video-queue": `AND ${QUEUED} AND jobs.lane = 'video'`,
};

export function* taskOf(key: string): Program<TaskRow | undefined> {
  return yield* first<TaskRow>(`SELECT ${TASK_COLUMNS} FROM jobs WHERE key = ?`, [key]);
}

export function* dependantsOf(upstreamKey: string): Program<TaskRow[]> {
  return yield* rows<TaskRow>(
    (d) => `SELECT ${TASK_COLUMNS} FROM jobs WHERE upstream_key = ? ORDER BY ${d.place}`,
    [upstreamKey],
  );
}

export const taskReads = {
  task: read(taskOf),
  tasksOf: read(function* (runId: number) {
    return yield* rows<TaskRow>(
      (d) => `SELECT ${TASK_COLUMNS} FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
       WHERE run_jobs.run_id = ? ORDER BY ${d.place}`,
      [runId],
    );
  }),
  /**
   * Up to `limit` of the run's tasks recorded after `after` (a `place`; 0 from the first), in
   * the order they were recorded, each with its place: a run read a page at a time. Walks the
   * recorded order from `after` (an index range), so paging through a run reads each row once.
   */
  taskPage: read(function* (runId: number, of: TaskPageOf, after: number, limit: number) {
    const found = yield* rows<TaskRow & { place: number | string }>(
      (d) => `SELECT ${d.place} AS place, ${TASK_COLUMNS} FROM jobs
       WHERE ${d.place} > ? ${PAGE_FILTER[of]}
         AND EXISTS (SELECT 1 FROM run_jobs WHERE run_jobs.run_id = ? AND run_jobs.key = jobs.key)
       ORDER BY ${d.place} LIMIT ?`,
      [after, runId, limit],
    );
    // PostgreSQL's BIGINT comes as text.
    return found.map(({ place, ...task }) => ({ place: Number(place), task: task as TaskRow }));
  }),
  tasksByKey: read(function* (keys: readonly string[]) {
    const found = new Map<string, TaskRow>();
    for (let start = 0; start < keys.length; start += PAGE) {
      const page = keys.slice(start, start + PAGE);
      for (const row of yield* rows<TaskRow>(
        (d) => `SELECT ${TASK_COLUMNS} FROM jobs WHERE ${d.anyOf("key")}`,
        [page],
      ))
        found.set(row.key, row);
    }
    return found;
  }),
  /** A manifest job's current tasks in an output folder: per label its take (`withScope`). */
  currentTasksOf: read(function* (outputDir: string, jobId: string) {
    const scope = withScope({ folder: outputDir });
    return yield* rows<TaskRow>(
      (d) => `${scope.sql(d)} SELECT ${TASK_COLUMNS} FROM scope JOIN jobs ON jobs.key = scope.key
       WHERE jobs.job_id = ? ORDER BY scope.place`,
      [scope.param, jobId],
    );
  }),
  dependantsOf: read(dependantsOf),
  takesOf: read(function* (runId: number, task: Pick<TaskRow, "job_id" | "vars" | "upstream_key">) {
    // By job id first (an index), then the run: a selecting job's tasks are few.
    return yield* rows<TakeRow>(
      (d) => `SELECT jobs.key, jobs.state, jobs.repeat_index, jobs.take, outputs.idx,
         outputs.checks, reviews.decision AS review
       FROM jobs
       LEFT JOIN outputs ON outputs.job_key = jobs.key AND outputs.state = 'downloaded'
       LEFT JOIN reviews ON reviews.job_key = jobs.key AND reviews.idx = outputs.idx
       WHERE jobs.job_id = ? AND COALESCE(jobs.vars, '') = ? AND COALESCE(jobs.upstream_key, '') = ?
         AND jobs.placeholder = 0
         AND EXISTS (SELECT 1 FROM run_jobs WHERE run_jobs.run_id = ? AND run_jobs.key = jobs.key)
       ORDER BY ${d.place}, outputs.idx`,
      [task.job_id, task.vars ?? "", task.upstream_key ?? "", runId],
    );
  }),
  outputsOf: read(function* (key: string) {
    return yield* rows<OutputRow>("SELECT * FROM outputs WHERE job_key = ? ORDER BY idx", [key]);
  }),
  copiesOf: read(function* (key: string) {
    return yield* rows<OutputCopy>("SELECT * FROM output_copies WHERE job_key = ? ORDER BY idx", [
      key,
    ]);
  }),
  outputAt: read(function* (path: string) {
    return yield* first<{ key: string; idx: number }>(
      `SELECT job_key AS key, idx FROM outputs WHERE path = ?
       UNION ALL SELECT job_key, idx FROM output_copies WHERE path = ? LIMIT 1`,
      [path, path],
    );
  }),
  textAnswer: read(function* (key: string) {
    return yield* first<TextAnswerRow>("SELECT * FROM text_answers WHERE job_key = ?", [key]);
  }),
};
