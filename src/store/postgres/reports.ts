import { roundMoney } from "../../core/money.js";
import type { ReportScope } from "../port.js";
import type {
  FailureRow,
  ReportOutput,
  ReportRow,
  ReportSummary,
  ReportTask,
  TextAnswerRow,
} from "../rows.js";
import { FAILED_STATES } from "../states.js";
import { type PgDb, row, rows } from "./db.js";
import { withScope } from "./scope.js";

/** What reports read, as `../sqlite/reports.ts` reads it: page by page, in the same order. */

/** Tasks per page of a report: small enough to stay lean at 100k tasks. */
const PAGE = 1000;

type Joined = ReportTask & ReportOutput & { output_state: string };

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
  for (let start = 0; start < order.length; start += PAGE) {
    // Only the columns a report shows: wide rows are most of the cost at 100k tasks.
    const page = await rows<Joined>(
      db.pool,
      `SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason, jobs.request, jobs.cost,
         jobs.task_id, outputs.idx, outputs.state AS output_state, outputs.path, outputs.bytes,
         outputs.sha256, outputs.content_type, outputs.check_state, outputs.checks,
         outputs.thumbnail, outputs.poster
       FROM unnest($1::bigint[]) WITH ORDINALITY AS wanted(place, n)
         JOIN jobs ON jobs.place = wanted.place
         LEFT JOIN outputs ON outputs.job_key = jobs.key
       ORDER BY wanted.n, outputs.idx`,
      [order.slice(start, start + PAGE)],
    );
    for (const joined of page) yield reportRow(joined);
  }
}

function reportRow(joined: Joined): ReportRow {
  const task: ReportTask = {
    key: joined.key,
    job_id: joined.job_id,
    label: joined.label,
    state: joined.state,
    reason: joined.reason,
    request: joined.request,
    cost: joined.cost,
    task_id: joined.task_id,
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
    },
  };
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
  const states: Record<string, number> = {};
  let spent = 0;
  const byState = await rows<{ state: string; n: number; spent: number }>(
    db.pool,
    `${sql} SELECT jobs.state AS state, count(*) AS n, sum(coalesce(jobs.cost, 0)) AS spent
     FROM scope JOIN jobs ON jobs.key = scope.key GROUP BY jobs.state`,
    [param],
  );
  for (const entry of byState) {
    states[entry.state] = entry.n;
    spent += entry.spent;
  }
  const outputs = await row<{ n: number }>(
    db.pool,
    `${sql} SELECT count(*) AS n FROM scope JOIN outputs ON outputs.job_key = scope.key
     WHERE outputs.state = 'downloaded'`,
    [param],
  );
  return { states, outputs: outputs?.n ?? 0, spent: roundMoney(spent) };
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
