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
import { type PgDb, row, rows } from "./db.js";
import { withScope } from "./scope.js";

/** What reports read, as `../sqlite/reports.ts` reads it: page by page, in the same order. */

/**
 * The order (the tasks of one manifest job together, in the order recorded) is taken first,
 * as places; then the rows a page at a time.
 */
export async function* reportRows(db: PgDb, scope: ReportScope): AsyncGenerator<ReportRow> {
  const { sql, param } = withScope(scope);
  const order = (
    await rows<{ place: number }>(
      db.pool,
      `${sql} SELECT jobs.place FROM scope JOIN jobs ON jobs.key = scope.key
       ORDER BY min(scope.place) OVER (PARTITION BY jobs.job_id), scope.place`,
      [param],
    )
  ).map((entry) => entry.place);
  // The scope's folder: an output delivered into it is shown by its copy there.
  const folder =
    "folder" in scope
      ? scope.folder
      : (
          await row<{ output_dir: string }>(db.pool, "SELECT output_dir FROM runs WHERE id = $1", [
            scope.run,
          ])
        )?.output_dir;
  for (let start = 0; start < order.length; start += REPORT_PAGE) {
    // Only the columns a report shows: wide rows are most of the cost at 100k tasks.
    const page = await rows<ReportJoined>(
      db.pool,
      `SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason, jobs.request, jobs.cost,
         jobs.task_id, jobs.vars, jobs.repeat_index, jobs.take, jobs.upstream_key,
         jobs.submitted_at, jobs.completed_at, outputs.idx, outputs.state AS output_state,
         coalesce(copies.path, outputs.path) AS path, outputs.bytes, outputs.sha256,
         outputs.content_type, outputs.check_state, outputs.checks,
         CASE WHEN copies.path IS NULL THEN outputs.thumbnail ELSE copies.thumbnail END AS thumbnail,
         CASE WHEN copies.path IS NULL THEN outputs.poster ELSE copies.poster END AS poster,
         outputs.downloaded_at, reviews.decision AS review, reviews.note AS review_note,
         payer.base_url = 'sim' AS simulated
       FROM unnest($1::bigint[]) WITH ORDINALITY AS wanted(place, n)
         JOIN jobs ON jobs.place = wanted.place
         LEFT JOIN outputs ON outputs.job_key = jobs.key
         LEFT JOIN output_copies AS copies ON copies.job_key = outputs.job_key
           AND copies.idx = outputs.idx AND copies.output_dir = $2
         LEFT JOIN reviews ON reviews.job_key = outputs.job_key AND reviews.idx = outputs.idx
         LEFT JOIN runs AS payer ON payer.id = jobs.paid_run
       ORDER BY wanted.n, outputs.idx`,
      [order.slice(start, start + REPORT_PAGE), folder ?? null],
    );
    for (const joined of page) yield reportRowOf(joined);
  }
}

export async function* failuresOf(db: PgDb, scope: ReportScope): AsyncGenerator<FailureRow> {
  const { sql, param } = withScope(scope);
  yield* await rows<FailureRow>(
    db.pool,
    `${sql} SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason
     FROM scope JOIN jobs ON jobs.key = scope.key
     WHERE jobs.state = ANY($2::text[])
     ORDER BY scope.place`,
    [param, [...FAILED_STATES]],
  );
}

export async function summaryOf(db: PgDb, scope: ReportScope): Promise<ReportSummary> {
  const { sql, param } = withScope(scope);
  // A run pays for what it submitted; an output folder holds what every run paid.
  const payer = "run" in scope ? scope.run : null;
  const byState = await rows<{ state: string; n: number; spent: number; paid: number }>(
    db.pool,
    `${sql} SELECT jobs.state AS state, count(*) AS n, sum(coalesce(jobs.cost, 0)) AS spent,
       sum(CASE WHEN $2::int IS NULL OR jobs.paid_run = $2::int THEN coalesce(jobs.cost, 0) ELSE 0 END)
         AS paid
     FROM scope JOIN jobs ON jobs.key = scope.key GROUP BY jobs.state`,
    [param, payer],
  );
  const outputs = await row<{ n: number }>(
    db.pool,
    `${sql} SELECT count(*) AS n FROM scope JOIN outputs ON outputs.job_key = scope.key
     WHERE outputs.state = 'downloaded'`,
    [param],
  );
  const decided = await rows<{ decision: ReviewDecision; n: number }>(
    db.pool,
    `${sql} SELECT reviews.decision AS decision, count(*) AS n FROM scope
     JOIN reviews ON reviews.job_key = scope.key GROUP BY reviews.decision`,
    [param],
  );
  return summaryFromCounts(byState, outputs?.n ?? 0, decided);
}

export function textAnswersOf(
  db: PgDb,
  runId: number,
): Promise<(TextAnswerRow & { label: string })[]> {
  return rows<TextAnswerRow & { label: string }>(
    db.pool,
    `SELECT text_answers.*, jobs.label FROM run_jobs
       JOIN jobs ON jobs.key = run_jobs.key
       JOIN text_answers ON text_answers.job_key = jobs.key
     WHERE run_jobs.run_id = $1 ORDER BY jobs.place`,
    [runId],
  );
}

/** Each task of a run with its times; downloads are read from the event log in one pass. */
export function timelineOf(db: PgDb, runId: number): Promise<TimelineRow[]> {
  return rows<TimelineRow>(
    db.pool,
    `WITH downloads AS (
       SELECT job_key, min(at) AS at FROM events
       WHERE run_id = $1 AND type = 'job:downloaded' GROUP BY job_key)
     SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason,
       jobs.created_at AS queued_at, jobs.submitted_at, jobs.completed_at,
       downloads.at AS downloaded_at, jobs.done_at, jobs.updated_at
     FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
     LEFT JOIN downloads ON downloads.job_key = jobs.key
     WHERE run_jobs.run_id = $1 AND jobs.placeholder = 0 ORDER BY jobs.place`,
    [runId],
  );
}

/** A run's downloaded outputs for a review grid, the tasks of one manifest job together. */
export function gridOf(db: PgDb, runId: number): Promise<GridRow[]> {
  return rows<GridRow>(
    db.pool,
    `SELECT jobs.key, jobs.job_id, jobs.label, jobs.vars, jobs.repeat_index, jobs.take,
       outputs.idx, outputs.content_type,
       (outputs.thumbnail IS NOT NULL OR outputs.poster IS NOT NULL)::int AS pictured,
       outputs.check_state, reviews.decision AS review, reviews.note AS review_note
     FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
     JOIN outputs ON outputs.job_key = jobs.key AND outputs.state = 'downloaded'
     LEFT JOIN reviews ON reviews.job_key = outputs.job_key AND reviews.idx = outputs.idx
     WHERE run_jobs.run_id = $1
     ORDER BY min(jobs.place) OVER (PARTITION BY jobs.job_id), jobs.place, outputs.idx`,
    [runId],
  );
}
