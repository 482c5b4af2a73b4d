import type { ReportScope } from "../port.js";
import { REPORT_PAGE, type ReportJoined, reportRowOf, summaryFromCounts } from "../report-rows.js";
import type {
  FailureRow,
  GridRow,
  ReportRow,
  ReportSummary,
  ReviewDecision,
  TextAnswerRow,
  TimelineRow,
} from "../rows.js";
import { FAILED_STATES } from "../states.js";
import type { SqliteDb } from "./db.js";
import { withScope } from "./scope.js";

/**
 * What reports read, of a run or of an output folder: the outputs page by page, the
 * failures, the summary; and a run's text answers.
 */

/**
 * Reads in pages, so other statements may run between them: the order (the tasks of one
 * manifest job together, in the order recorded) is taken first, as row ids.
 */
export async function* reportRows(s: SqliteDb, scope: ReportScope): AsyncGenerator<ReportRow> {
  const { sql, param } = withScope(scope);
  const order = s
    .sql(
      `${sql} SELECT jobs.rowid FROM scope JOIN jobs ON jobs.key = scope.key
       ORDER BY min(scope.place) OVER (PARTITION BY jobs.job_id), scope.place`,
    )
    .pluck()
    .all(param) as number[];
  // The scope's folder: an output delivered into it is shown by its copy there.
  const folder =
    "folder" in scope
      ? scope.folder
      : (s.sql("SELECT output_dir FROM runs WHERE id = ?").pluck().get(scope.run) as string | null);
  // Only the columns a report shows: wide rows are most of the cost at 100k tasks.
  const page = s.sql(
    `SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason, jobs.request, jobs.cost,
       jobs.task_id, jobs.vars, jobs.repeat_index, jobs.take, jobs.upstream_key, jobs.submitted_at,
       jobs.completed_at, outputs.idx, outputs.state AS output_state,
       coalesce(copies.path, outputs.path) AS path, outputs.bytes, outputs.sha256,
       outputs.content_type, outputs.check_state, outputs.checks,
       CASE WHEN copies.path IS NULL THEN outputs.thumbnail ELSE copies.thumbnail END AS thumbnail,
       CASE WHEN copies.path IS NULL THEN outputs.poster ELSE copies.poster END AS poster,
       outputs.downloaded_at, reviews.decision AS review, reviews.note AS review_note,
       payer.base_url = 'sim' AS simulated
     FROM json_each(?) AS wanted JOIN jobs ON jobs.rowid = wanted.value
     LEFT JOIN outputs ON outputs.job_key = jobs.key
     LEFT JOIN output_copies AS copies ON copies.job_key = outputs.job_key
       AND copies.idx = outputs.idx AND copies.output_dir = ?
     LEFT JOIN reviews ON reviews.job_key = outputs.job_key AND reviews.idx = outputs.idx
     LEFT JOIN runs AS payer ON payer.id = jobs.paid_run
     ORDER BY wanted.key, outputs.idx`,
  );
  for (let start = 0; start < order.length; start += REPORT_PAGE) {
    const rows = page.all(
      JSON.stringify(order.slice(start, start + REPORT_PAGE)),
      folder,
    ) as ReportJoined[];
    for (const row of rows) yield reportRowOf(row);
  }
}

export async function* failuresOf(s: SqliteDb, scope: ReportScope): AsyncGenerator<FailureRow> {
  const { sql, param } = withScope(scope);
  const rows = s
    .sql(
      `${sql} SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason
       FROM scope JOIN jobs ON jobs.key = scope.key
       WHERE jobs.state IN (SELECT value FROM json_each(?))
       ORDER BY scope.place`,
    )
    .all(param, JSON.stringify(FAILED_STATES)) as FailureRow[];
  yield* rows;
}

export function summaryOf(s: SqliteDb, scope: ReportScope): ReportSummary {
  const { sql, param } = withScope(scope);
  // A run pays for what it submitted; an output folder holds what every run paid.
  const payer = "run" in scope ? scope.run : null;
  const byState = s
    .sql(
      `${sql} SELECT jobs.state AS state, count(*) AS n, sum(coalesce(jobs.cost, 0)) AS spent,
         sum(CASE WHEN ? IS NULL OR jobs.paid_run = ? THEN coalesce(jobs.cost, 0) ELSE 0 END) AS paid
       FROM scope JOIN jobs ON jobs.key = scope.key GROUP BY jobs.state`,
    )
    .all(param, payer, payer) as { state: string; n: number; spent: number; paid: number }[];
  const outputs = s
    .sql(
      `${sql} SELECT count(*) AS n FROM scope JOIN outputs ON outputs.job_key = scope.key
       WHERE outputs.state = 'downloaded'`,
    )
    .get(param) as { n: number };
  const decided = s
    .sql(
      `${sql} SELECT reviews.decision AS decision, count(*) AS n FROM scope
       JOIN reviews ON reviews.job_key = scope.key GROUP BY reviews.decision`,
    )
    .all(param) as { decision: ReviewDecision; n: number }[];
  return summaryFromCounts(byState, outputs.n, decided);
}

export function textAnswersOf(s: SqliteDb, runId: number): (TextAnswerRow & { label: string })[] {
  return s
    .sql(
      `SELECT text_answers.*, jobs.label FROM run_jobs
         JOIN jobs ON jobs.key = run_jobs.key
         JOIN text_answers ON text_answers.job_key = jobs.key
       WHERE run_jobs.run_id = ? ORDER BY jobs.rowid`,
    )
    .all(runId) as (TextAnswerRow & { label: string })[];
}

/** Each task of a run with its times; downloads are read from the event log in one pass. */
export function timelineOf(s: SqliteDb, runId: number): TimelineRow[] {
  return s
    .sql(
      `WITH downloads AS (
         SELECT job_key, min(at) AS at FROM events
         WHERE run_id = ? AND type = 'job:downloaded' GROUP BY job_key)
       SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason,
         jobs.created_at AS queued_at, jobs.submitted_at, jobs.completed_at,
         downloads.at AS downloaded_at, jobs.done_at, jobs.updated_at
       FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
       LEFT JOIN downloads ON downloads.job_key = jobs.key
       WHERE run_jobs.run_id = ? AND jobs.placeholder = 0 ORDER BY jobs.rowid`,
    )
    .all(runId, runId) as TimelineRow[];
}

/** A run's downloaded outputs for a review grid, the tasks of one manifest job together. */
export function gridOf(s: SqliteDb, runId: number): GridRow[] {
  return s
    .sql(
      `SELECT jobs.key, jobs.job_id, jobs.label, jobs.vars, jobs.repeat_index, jobs.take,
         outputs.idx, outputs.content_type,
         (outputs.thumbnail IS NOT NULL OR outputs.poster IS NOT NULL) AS pictured,
         outputs.check_state, reviews.decision AS review, reviews.note AS review_note
       FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
       JOIN outputs ON outputs.job_key = jobs.key AND outputs.state = 'downloaded'
       LEFT JOIN reviews ON reviews.job_key = outputs.job_key AND reviews.idx = outputs.idx
       WHERE run_jobs.run_id = ?
       ORDER BY min(jobs.rowid) OVER (PARTITION BY jobs.job_id), jobs.rowid, outputs.idx`,
    )
    .all(runId) as GridRow[];
}
