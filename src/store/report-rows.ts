import { roundMoney } from "../core/money.js";
import type { ReportOutput, ReportRow, ReportSummary, ReportTask } from "./rows.js";

/**
 * Reports assembled from what both stores' queries return: the rows and the summary are one
 * shape whichever store read them, so only the SQL stays per adapter.
 */

/** Tasks per page of a report: small enough to stay lean at 100k tasks. */
export const REPORT_PAGE = 1000;

/** A task joined with one of its outputs (all output columns null when it has none). */
export type ReportJoined = Omit<ReportTask, "simulated"> &
  ReportOutput & { output_state: string; simulated: boolean | number | null };

export function reportRowOf(joined: ReportJoined): ReportRow {
  const task: ReportTask = {
    key: joined.key,
    job_id: joined.job_id,
    label: joined.label,
    state: joined.state,
    reason: joined.reason,
    request: joined.request,
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
    },
  };
}

/** The summary of a scope from its counts: tasks (and spend) by state, outputs, reviews. */
export function summaryFromCounts(
  byState: readonly { state: string; n: number; spent: number; paid: number }[],
  downloaded: number,
  decided: readonly { decision: keyof ReportSummary["reviews"]; n: number }[],
): ReportSummary {
  const states: Record<string, number> = {};
  let spent = 0;
  let paid = 0;
  for (const entry of byState) {
    states[entry.state] = entry.n;
    spent += entry.spent;
    paid += entry.paid;
  }
  const reviews = { approved: 0, rejected: 0 };
  for (const entry of decided) reviews[entry.decision] = entry.n;
  return { states, outputs: downloaded, spent: roundMoney(spent), paid: roundMoney(paid), reviews };
}
