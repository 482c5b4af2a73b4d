import type { Dialect, ForDialect } from "../dialect.js";
import { first, read, rows } from "../program.js";
import type {
  Page,
  PageRange,
  TimelineOrder,
  TimelinePage,
  TimelineQuery,
} from "../report-port.js";
import type { FailureRow, GridRow, TimelineRow } from "../rows.js";
import { FINAL_STATES, UNDONE_STATES } from "../states.js";
import { inPageOrder, runFailures, runTasks } from "./run-tasks.js";

/**
 * What a person looks at of a large run, a page at a time: its grid of outputs, its timeline,
 * its failures (the live page's counts are the run's summary, `runSummaryOf`). A page is found
 * by sorting the run's tasks through a narrow index (`runTasks`), then only its own rows are
 * read in full: a page of a 300,000-task run is served in well under a second.
 */

/** A run's own tasks (see `ownTimeline` in the viewer); parameters: run, final states, start. */
function ownTasks(d: Dialect): string {
  return `FROM ${runTasks(d)}
    WHERE run_jobs.run_id = ? AND jobs.placeholder = 0
      AND NOT (${d.anyOf("jobs.state")} AND jobs.updated_at < ?)`;
}

/** When a task's work ended, for ordering by how long it took. */
const ENDED = "coalesce(jobs.done_at, jobs.updated_at)";

function timelineOrder(
  order: TimelineOrder,
  startedAt: number,
): { sql: ForDialect; params: unknown[] } {
  switch (order) {
    case "recorded":
      return { sql: (d) => d.place, params: [] };
    case "slowest":
      // Queued before the run started counts from its start, as the timeline draws it.
      return {
        sql: (d) =>
          `${ENDED} - CASE WHEN jobs.created_at > ? THEN jobs.created_at ELSE ? END DESC, ${d.place}`,
        params: [startedAt, startedAt],
      };
    case "failed":
      return {
        sql: (d) => `CASE WHEN ${d.anyOf("jobs.state")} THEN 0 ELSE 1 END, ${d.place}`,
        params: [UNDONE_STATES],
      };
    default: {
      const never: never = order;
      throw new Error(`unknown timeline order ${String(never)}`);
    }
  }
}

/** A manifest job of a run as the grid groups it: where first recorded, its outputs on disk. */
interface GridGroup {
  job_id: string;
  first: number;
  n: number;
}

/** The part of each group a page of the grid holds, groups in the order first recorded. */
export function gridSlices(
  groups: readonly GridGroup[],
  range: PageRange,
): { job_id: string; offset: number; limit: number }[] {
  const slices: { job_id: string; offset: number; limit: number }[] = [];
  let start = 0;
  let from = range.offset;
  let left = range.limit;
  for (const group of [...groups].sort((a, b) => Number(a.first) - Number(b.first))) {
    const end = start + Number(group.n);
    if (left > 0 && from < end) {
      const offset = from - start;
      const limit = Math.min(left, end - from);
      slices.push({ job_id: group.job_id, offset, limit });
      from += limit;
      left -= limit;
    }
    start = end;
  }
  return slices;
}

export const viewReads = {
  /** A page of a run's downloaded outputs, the tasks of one manifest job together. */
  gridPageOf: read(function* (runId: number, range: PageRange) {
    const groups = yield* rows<GridGroup>(
      (d) => `SELECT jobs.job_id, min(${d.place}) AS first, count(outputs.idx) AS n
       FROM ${runTasks(d)}
         LEFT JOIN outputs ON outputs.job_key = jobs.key AND outputs.state = 'downloaded'
       WHERE run_jobs.run_id = ? GROUP BY jobs.job_id`,
      [runId],
    );
    const picked: { place: number; idx: number }[] = [];
    for (const slice of gridSlices(groups, range))
      picked.push(
        ...(yield* rows<{ place: number; idx: number }>(
          (d) => `SELECT ${d.place} AS place, outputs.idx FROM ${runTasks(d)}
             JOIN outputs ON outputs.job_key = jobs.key AND outputs.state = 'downloaded'
           WHERE run_jobs.run_id = ? AND jobs.job_id = ?
           ORDER BY ${d.place}, outputs.idx LIMIT ? OFFSET ?`,
          [runId, slice.job_id, slice.limit, slice.offset],
        )),
      );
    const places = [...new Set(picked.map((entry) => Number(entry.place)))];
    const found = yield* rows<GridRow & { place: number }>(
      (d) => `SELECT ${d.place} AS place, jobs.key, jobs.job_id, jobs.label, jobs.vars,
         jobs.repeat_index, jobs.take, outputs.idx, outputs.content_type,
         CASE WHEN outputs.thumbnail IS NULL AND outputs.poster IS NULL THEN 0 ELSE 1 END AS pictured,
         outputs.check_state, reviews.decision AS review, reviews.note AS review_note,
         reviews.reviewer AS review_by,
         judgements.verdict AS judge_verdict, judgements.reason AS judge_reason
       FROM jobs JOIN outputs ON outputs.job_key = jobs.key AND outputs.state = 'downloaded'
       LEFT JOIN reviews ON reviews.job_key = outputs.job_key AND reviews.idx = outputs.idx
       LEFT JOIN judgements ON judgements.job_key = outputs.job_key
         AND judgements.idx = outputs.idx AND judgements.state = 'judged'
       WHERE ${d.anyOf(d.place)}`,
      [places],
    );
    // A task's outputs may be split between two pages: only the ones picked are this page's.
    const wanted = new Set(picked.map((entry) => `${Number(entry.place)}/${entry.idx}`));
    const page = inPageOrder(
      places,
      found.filter((row) => wanted.has(`${Number(row.place)}/${row.idx}`)),
      (a, b) => a.idx - b.idx,
    ).map(({ place: _, ...row }) => row);
    const total = groups.reduce((sum, group) => sum + Number(group.n), 0);
    return { total, rows: page } satisfies Page<GridRow>;
  }),
  /**
   * A page of a run's own tasks with their times; a task's download is when its last output
   * arrived, read from the outputs (the event log may be pruned).
   */
  timelinePageOf: read(function* (runId: number, query: TimelineQuery) {
    const own = [runId, FINAL_STATES, query.startedAt];
    // A test in a CASE, not a lookup: one pass over the run, not one per state.
    const only: ForDialect = (d) =>
      query.undoneOnly ? ` AND CASE WHEN ${d.anyOf("jobs.state")} THEN 1 ELSE 0 END = 1` : "";
    const onlyParams = query.undoneOnly ? [UNDONE_STATES] : [];
    const span = yield* first<{ n: number; start: number | null; end: number | null }>(
      (d) =>
        `SELECT count(*) AS n, min(jobs.created_at) AS start, max(${ENDED}) AS "end" ${ownTasks(d)}${only(d)}`,
      [...own, ...onlyParams],
    );
    const order = timelineOrder(query.order, query.startedAt);
    const places = (yield* rows<{ place: number }>(
      (d) =>
        `SELECT ${d.place} AS place ${ownTasks(d)}${only(d)} ORDER BY ${order.sql(d)} LIMIT ? OFFSET ?`,
      [...own, ...onlyParams, ...order.params, query.limit, query.offset],
    )).map((entry) => Number(entry.place));
    const found = yield* rows<TimelineRow & { place: number }>(
      (d) => `SELECT ${d.place} AS place, jobs.key, jobs.job_id, jobs.label, jobs.state,
         jobs.reason, jobs.created_at AS queued_at, jobs.submitted_at, jobs.completed_at,
         (SELECT max(outputs.downloaded_at) FROM outputs
          WHERE outputs.job_key = jobs.key AND outputs.state = 'downloaded') AS downloaded_at,
         jobs.done_at, jobs.updated_at
       FROM jobs WHERE ${d.anyOf(d.place)}`,
      [places],
    );
    return {
      total: Number(span?.n ?? 0),
      start: span?.start ?? null,
      end: span?.end ?? null,
      rows: inPageOrder(places, found).map(({ place: _, ...row }) => row),
    } satisfies TimelinePage;
  }),
  /** A page of a run's tasks that ended without their outputs, in the order recorded. */
  failuresPageOf: read(function* (runId: number, range: PageRange) {
    const count = yield* first<{ n: number }>(
      (d) => `SELECT count(*) AS n ${runFailures(d)}`,
      [runId],
    );
    const found = yield* rows<FailureRow>(
      (d) => `SELECT jobs.key, jobs.job_id, jobs.label, jobs.state, jobs.reason ${runFailures(d)}
       ORDER BY ${d.place} LIMIT ? OFFSET ?`,
      [runId, range.limit, range.offset],
    );
    return { total: Number(count?.n ?? 0), rows: found } satisfies Page<FailureRow>;
  }),
};
