import { roundMoney } from "../../core/money.js";
import { type Commit, type Executor, first, type Program, read, rows } from "../program.js";
import type { ReportOrder, ReportScope } from "../report-port.js";
import type {
  FailureRow,
  ReportOutput,
  ReportRow,
  ReportSummary,
  ReportTask,
  ReviewDecision,
  RunSummary,
  TextAnswerRow,
} from "../rows.js";
import { FAILED_STATES, FINAL_STATES } from "../states.js";
import { runFailures } from "./run-tasks.js";
import { scopeTasks, withScope, withScopeKeys } from "./scope.js";
import { TASK_REQUEST } from "./tasks.js";

/**
 * What reports read, of a run or of an output folder: the outputs page by page, the
 * failures, the summary; and a run's text answers, timeline and review grid.
 */

/** Tasks per page of a report: small enough to stay lean at 100k tasks. */
const REPORT_PAGE = 1000;

/** A task joined with one of its outputs (all output columns null when it has none). */
type ReportJoined = Omit<ReportTask, "simulated"> &
  ReportOutput & { place: number; output_state: string; simulated: boolean | number | null };

/**
 * The order (the tasks of one manifest job together, in the order recorded) as places, and
 * the scope's folder: an output delivered into it is shown by its copy there.
 */
function* reportOrder(scope: ReportScope): Program<ReportOrder> {
  const { sql, param } = withScope(scope);
  const order = yield* rows<{ place: number }>(
    (d) => `${sql(d)} SELECT ${d.place} AS place
     FROM scope JOIN ${d.indexedBy("jobs", "jobs_of_runs")} ON jobs.key = scope.key
     ORDER BY min(scope.place) OVER (PARTITION BY jobs.job_id), scope.place`,
    [param],
  );
  const folder =
    "folder" in scope
      ? scope.folder
      : (yield* first<{ output_dir: string }>("SELECT output_dir FROM runs WHERE id = ?", [
          scope.run,
        ]))?.output_dir;
  return { places: order.map((entry) => Number(entry.place)), folder: folder ?? null };
}

/** A page of the report in the order of `places`; only the columns a report shows. */
function* reportPage(places: readonly number[], folder: string | null): Program<ReportJoined[]> {
  const found = yield* rows<ReportJoined>(
    (d) => `SELECT ${d.place} AS place, jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason,
       ${TASK_REQUEST} AS request, jobs.estimated_cost, jobs.cost, jobs.task_id, jobs.vars, jobs.repeat_index, jobs.take,
       jobs.upstream_key, jobs.submitted_at, jobs.completed_at, outputs.idx,
       outputs.state AS output_state, coalesce(copies.path, outputs.path) AS path, outputs.bytes,
       outputs.sha256, outputs.content_type, outputs.check_state, outputs.checks,
       CASE WHEN copies.path IS NULL THEN outputs.thumbnail ELSE copies.thumbnail END AS thumbnail,
       CASE WHEN copies.path IS NULL THEN outputs.poster ELSE copies.poster END AS poster,
       outputs.downloaded_at, reviews.decision AS review, reviews.note AS review_note,
       reviews.reviewer AS review_by, payer.base_url = 'sim' AS simulated
     FROM jobs
       LEFT JOIN outputs ON outputs.job_key = jobs.key
       LEFT JOIN output_copies AS copies ON copies.job_key = outputs.job_key
         AND copies.idx = outputs.idx AND copies.output_dir = ?
       LEFT JOIN reviews ON reviews.job_key = outputs.job_key AND reviews.idx = outputs.idx
       LEFT JOIN runs AS payer ON payer.id = jobs.paid_run
     WHERE ${d.anyOf(d.place)}`,
    [folder, places],
  );
  const at = new Map(places.map((place, i) => [place, i]));
  const position = (row: ReportJoined) => at.get(row.place) ?? 0;
  return found.sort((a, b) => position(a) - position(b) || (a.idx ?? 0) - (b.idx ?? 0));
}

function reportRowOf(joined: ReportJoined): ReportRow {
  const task: ReportTask = {
    key: joined.key,
    job_id: joined.job_id,
    label: joined.label,
    state: joined.state,
    reason: joined.reason,
    request: joined.request,
    estimated_cost: joined.estimated_cost,
    cost: joined.cost,
    task_id: joined.task_id,
    vars: joined.vars,
    repeat_index: joined.repeat_index,
    take: joined.take,
    upstream_key: joined.upstream_key,
    submitted_at: joined.submitted_at,
    completed_at: joined.completed_at,
    simulated: Boolean(joined.simulated),
  };
  if (joined.idx === null) return { task, output: null };
  return {
    task,
    output: {
      idx: joined.idx,
      state: joined.output_state as ReportOutput["state"],
      path: joined.path,
      bytes: joined.bytes,
      sha256: joined.sha256,
      content_type: joined.content_type,
      check_state: joined.check_state,
      checks: joined.checks,
      thumbnail: joined.thumbnail,
      poster: joined.poster,
      downloaded_at: joined.downloaded_at,
      review: joined.review ?? null,
      review_note: joined.review_note ?? null,
      review_by: joined.review_by ?? null,
    },
  };
}

/** Pages are read on their own, as the report is read. */
const READ: Commit = { mode: "read", perTask: false };

export function reportOrderOf(exec: Executor, scope: ReportScope): Promise<ReportOrder> {
  return exec.execute(READ, () => reportOrder(scope));
}

/** Read in pages, so other statements may run between them. */
export async function* reportRows(
  exec: Executor,
  of: ReportScope | ReportOrder,
): AsyncGenerator<ReportRow> {
  const { places, folder } = "places" in of ? of : await reportOrderOf(exec, of);
  for (let start = 0; start < places.length; start += REPORT_PAGE) {
    const page = places.slice(start, start + REPORT_PAGE);
    for (const joined of await exec.execute(READ, () => reportPage(page, folder)))
      yield reportRowOf(joined);
  }
}

export async function* failuresOf(exec: Executor, scope: ReportScope): AsyncGenerator<FailureRow> {
  const columns = "jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason";
  if ("run" in scope) {
    // A run's are found among the few that failed (`runFailures`).
    const run = [scope.run];
    yield* await exec.execute(READ, () =>
      rows<FailureRow>((d) => `SELECT ${columns} ${runFailures(d)} ORDER BY ${d.place}`, run),
    );
    return;
  }
  const tasks = scopeTasks(scope);
  yield* await exec.execute(READ, () =>
    rows<FailureRow>(
      (d) => `${tasks.opening(d)} SELECT ${columns} ${tasks.from(d)}
       AND CASE WHEN ${d.anyOf("jobs.state")} THEN 1 ELSE 0 END = 1 ORDER BY ${tasks.place(d)}`,
      tasks.params([], [FAILED_STATES]),
    ),
  );
}

/**
 * The scope's counts and spend, and how many of its own tasks (stand-ins left out) moved to a
 * final state since `finishedSince` (ms; none counted when null): counts by state, spend and
 * finishes in one pass over the scope's tasks through the narrow index; outputs and reviews
 * apart, joined to the scope's keys alone, as sets PostgreSQL joins by hashing (a lookup per
 * task is slow there).
 */
function* scopeSummary(scope: ReportScope, finishedSince: number | null): Program<RunSummary> {
  const tasks = scopeTasks(scope);
  // A run pays for what it submitted; an output folder holds what every run paid.
  const payer = "run" in scope ? scope.run : null;
  const byState = yield* rows<{
    state: string;
    n: number;
    spent: number;
    paid: number;
    finished: number;
  }>(
    (d) => `${tasks.opening(d)}
     SELECT jobs.state AS state, count(*) AS n, sum(coalesce(jobs.cost, 0)) AS spent,
       sum(CASE WHEN CAST(? AS INTEGER) IS NULL OR jobs.paid_run = ? THEN coalesce(jobs.cost, 0)
         ELSE 0 END) AS paid,
       count(CASE WHEN jobs.placeholder = 0 AND ${d.anyOf("jobs.state")}
         AND jobs.updated_at >= CAST(? AS BIGINT) THEN 1 END) AS finished
     ${tasks.from(d)} GROUP BY jobs.state`,
    tasks.params([payer, payer, FINAL_STATES, finishedSince]),
  );
  const { sql, param } = withScopeKeys(scope);
  const outputs = yield* first<{ n: number }>(
    (d) => `${sql(d)} SELECT count(*) AS n FROM scope JOIN outputs ON outputs.job_key = scope.key
     WHERE outputs.state = 'downloaded'`,
    [param],
  );
  const decided = yield* rows<{ decision: ReviewDecision; n: number }>(
    (d) => `${sql(d)} SELECT reviews.decision AS decision, count(*) AS n FROM scope
     JOIN reviews ON reviews.job_key = scope.key GROUP BY reviews.decision`,
    [param],
  );
  const states: Record<string, number> = {};
  for (const entry of byState) states[entry.state] = Number(entry.n);
  const total = (pick: (entry: (typeof byState)[number]) => number) =>
    byState.reduce((sum, entry) => sum + Number(pick(entry)), 0);
  const reviews = { approved: 0, rejected: 0 };
  for (const entry of decided) reviews[entry.decision] = Number(entry.n);
  return {
    states,
    outputs: Number(outputs?.n ?? 0),
    spent: roundMoney(total((entry) => entry.spent)),
    paid: roundMoney(total((entry) => entry.paid)),
    reviews,
    finished: total((entry) => entry.finished),
  };
}

export const reportReads = {
  summaryOf: read(function* (scope: ReportScope) {
    const { finished: _, ...summary } = yield* scopeSummary(scope, null);
    return summary satisfies ReportSummary;
  }),
  runSummaryOf: read(function* (runId: number, startedAt: number) {
    return yield* scopeSummary({ run: runId }, startedAt);
  }),
  textAnswersOf: read(function* (runId: number) {
    return yield* rows<TextAnswerRow & { label: string }>(
      (d) => `SELECT text_answers.*, jobs.label FROM run_jobs
         JOIN jobs ON jobs.key = run_jobs.key
         JOIN text_answers ON text_answers.job_key = jobs.key
       WHERE run_jobs.run_id = ? ORDER BY ${d.place}`,
      [runId],
    );
  }),
};
