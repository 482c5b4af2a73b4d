import { parse } from "yaml";
import { redactDataUris, valueLabel } from "../core/values.js";
import { isSimulator } from "../manifest/index.js";
import { reviewRecord, withOutputExtras } from "../postprocess/index.js";
import type {
  CostReport,
  FailureRow,
  GridRow,
  RunNotice,
  RunRow,
  Store,
  TimelineOrder,
  TimelineRow,
} from "../store/index.js";
import { textExcerpt, upstreamPicture } from "./captions.js";
import { withGridSelections } from "./grid-selection.js";
import { type PageNumbers, pageNumbers, rangeOf } from "./paging.js";

/**
 * What the viewer's pages show, read from the store as plain JSON-able values: the runs, a
 * run's progress, its timeline, its outputs for the grid, and one output in full.
 */

export interface RunItem {
  id: number;
  name: string;
  status: string;
  started_at: number;
  finished_at: number | null;
  /** ms; up to `now` while it runs. */
  duration: number;
  tasks: number;
  states: Record<string, number>;
  outputs: number;
  /** What the run paid itself: added up over runs, what was paid. */
  spent: number;
}

/** The latest runs, newest first, with their counts and spend. */
export async function runItems(store: Store, now: number, limit = 100): Promise<RunItem[]> {
  const items: RunItem[] = [];
  for (const run of await store.runs(limit)) {
    const summary = await store.summaryOf({ run: run.id });
    // A run that ended shows what it did then: later runs move the same tasks on.
    const states =
      run.end_states == null
        ? summary.states
        : (JSON.parse(run.end_states) as Record<string, number>);
    items.push({
      id: run.id,
      name: run.name,
      status: run.status,
      started_at: run.started_at,
      finished_at: run.finished_at,
      duration: (run.finished_at ?? now) - run.started_at,
      tasks: Object.values(states).reduce((sum, n) => sum + n, 0),
      states,
      outputs: summary.outputs,
      spent: summary.paid,
    });
  }
  return items;
}

/** The manifest's `max_cost`, when it is written as a number. */
export function maxCostOf(run: RunRow): number | null {
  try {
    const doc = parse(run.manifest_text) as { limits?: { max_cost?: unknown } } | null;
    const value = doc?.limits?.max_cost;
    return typeof value === "number" ? value : null;
  } catch {
    return null;
  }
}

export interface Progress {
  run: { id: number; name: string; status: string; finished: boolean; stop_reason: string | null };
  tasks: number;
  states: Record<string, number>;
  outputs: number;
  /** What the run paid itself. */
  paid: number;
  /** What its tasks cost in all, whichever run paid. */
  spent: number;
  max_cost: number | null;
  /** Tasks this run finished, per minute since its start. */
  rate: number;
  elapsed: number;
  reviews: { approved: number; rejected: number };
  /** The first of the run's failures (`FAILURES_SHOWN`); `failed` counts them all. */
  failures: { label: string; state: string; reason: string | null }[];
  failed: number;
  /** Rate limiting and stops, newest first. */
  notices: RunNotice[];
}

/** Failures the run page lists; the failures pages have the rest. */
export const FAILURES_SHOWN = 50;

/**
 * A run's progress now: counts per state, spend against the budget, rate, the first failures.
 * Counting queries and a page of failures: no task's row is sent or held, however large the run.
 */
export async function progressOf(store: Store, run: RunRow, now: number): Promise<Progress> {
  // Only what this run finished: a resumed run does not count its predecessors' work.
  const summary = await store.runSummaryOf(run.id, run.started_at);
  const failures = await store.failuresPageOf(run.id, { offset: 0, limit: FAILURES_SHOWN });
  const tasks = Object.values(summary.states).reduce((sum, n) => sum + n, 0);
  const elapsed = (run.finished_at ?? now) - run.started_at;
  return {
    run: {
      id: run.id,
      name: run.name,
      status: run.status,
      finished: run.finished_at !== null,
      stop_reason: run.stop_reason,
    },
    tasks,
    states: summary.states,
    outputs: summary.outputs,
    paid: summary.paid,
    spent: summary.spent,
    max_cost: maxCostOf(run),
    rate: elapsed > 0 ? Math.round((summary.finished / elapsed) * 60_000 * 10) / 10 : 0,
    elapsed,
    reviews: summary.reviews,
    failures: failures.rows.map(({ label, state, reason }) => ({ label, state, reason })),
    failed: failures.total,
    notices: await store.runNoticesOf(run.id, 10),
  };
}

/** Timeline rows per page. */
export const TIMELINE_PAGE = 1000;

/** A page of a run's timeline: its tasks and the span of all of them, for the bars' scale. */
export interface TimelineItems {
  page: PageNumbers;
  start: number | null;
  end: number | null;
  tasks: TimelineRow[];
}

/** A page of a run's own tasks with their times (see `ownTimeline`). */
export async function timelineItems(
  store: Store,
  run: RunRow,
  query: { page: number; order: TimelineOrder; undoneOnly: boolean },
): Promise<TimelineItems> {
  const found = await store.timelinePageOf(run.id, {
    ...rangeOf(query.page, TIMELINE_PAGE),
    startedAt: run.started_at,
    order: query.order,
    undoneOnly: query.undoneOnly,
  });
  const from = (at: number | null) => (at === null ? null : Math.max(at, run.started_at));
  return {
    page: pageNumbers(query.page, TIMELINE_PAGE, found.total),
    start: from(found.start),
    end: from(found.end),
    tasks: ownTimeline(found.rows, run.started_at),
  };
}

/** Failures per page. */
export const FAILURES_PAGE = 200;

/** A page of a run's failures with their reasons. */
export async function failureItems(
  store: Store,
  run: RunRow,
  page: number,
): Promise<{ page: PageNumbers; failures: FailureRow[] }> {
  const found = await store.failuresPageOf(run.id, rangeOf(page, FAILURES_PAGE));
  return { page: pageNumbers(page, FAILURES_PAGE, found.total), failures: found.rows };
}

/**
 * A run's own tasks as its timeline shows them: a time before the run started is shown as its
 * start, so a resumed run's timeline spans its own active time, not the idle gap since the run
 * before. (A task an earlier run finished and this one left alone is not read at all.)
 */
export function ownTimeline(rows: readonly TimelineRow[], startedAt: number): TimelineRow[] {
  const from = (at: number | null) => (at === null ? null : Math.max(at, startedAt));
  return rows.map((row) => ({
    ...row,
    queued_at: Math.max(row.queued_at, startedAt),
    submitted_at: from(row.submitted_at),
    completed_at: from(row.completed_at),
    downloaded_at: from(row.downloaded_at),
    done_at: from(row.done_at),
    updated_at: Math.max(row.updated_at, startedAt),
  }));
}

/** One output as the grid shows it: `id` is `<task key>/<index>`, how files are asked for. */
export interface GridItem {
  id: string;
  job: string;
  label: string;
  vars: Record<string, unknown>;
  /** Each variable's value as the grid's rows and columns are headed (`valueLabel`). */
  headings: Record<string, string>;
  repeat: number;
  take: number;
  kind: "image" | "video" | "text" | "other";
  /** Whether a thumbnail or poster exists to show in the grid. */
  thumb: boolean;
  check: "ok" | "failed" | null;
  review: "approved" | "rejected" | null;
  note: string | null;
  /** Who decided, shown beside the decision: a reviewer's name, "agent"; null: the person here. */
  by: string | null;
  /** A judge's suggestion, shown apart from the person's decision (which wins). */
  judge: { verdict: "pass" | "fail" | "undecided"; reason: string | null } | null;
  /** A text's first words, shown in its cell; null for media. */
  excerpt: string | null;
  /** Of a job with `select:`: one of the best takes of its group. */
  selected?: boolean;
}

function kindOf(contentType: string | null): GridItem["kind"] {
  const type = contentType ?? "";
  if (type.startsWith("image/")) return "image";
  if (type.startsWith("video/")) return "video";
  if (type.startsWith("text/")) return "text";
  return "other";
}

/** Outputs per grid page. */
export const GRID_PAGE = 1000;

/**
 * A page of the outputs on disk of a run, the tasks of one manifest job together; a text's
 * first words read from its file where it may be served from (`roots`).
 */
export async function gridItems(
  store: Store,
  run: RunRow,
  roots: readonly string[],
  page = 1,
): Promise<{ page: PageNumbers; outputs: GridItem[] }> {
  const found = await store.gridPageOf(run.id, rangeOf(page, GRID_PAGE));
  return {
    page: pageNumbers(page, GRID_PAGE, found.total),
    outputs: await withGridSelections(store, run, await gridOf(store, found.rows, roots)),
  };
}

async function gridOf(
  store: Store,
  rows: readonly GridRow[],
  roots: readonly string[],
): Promise<GridItem[]> {
  const excerpts = await Promise.all(
    rows.map((row) =>
      kindOf(row.content_type) === "text" ? textExcerpt(store, row.key, row.idx, roots) : null,
    ),
  );
  return rows.map((row, at) => {
    const vars = row.vars === null ? {} : (JSON.parse(row.vars) as Record<string, unknown>);
    return {
      id: `${row.key}/${row.idx}`,
      job: row.job_id,
      label: row.label,
      vars,
      headings: Object.fromEntries(
        Object.entries(vars).map(([name, value]) => [name, valueLabel(value)]),
      ),
      repeat: row.repeat_index,
      take: row.take,
      kind: kindOf(row.content_type),
      thumb: row.pictured === 1,
      check: row.check_state,
      review: row.review,
      note: row.review_note,
      by: row.review_by,
      judge:
        row.judge_verdict === null
          ? null
          : { verdict: row.judge_verdict, reason: row.judge_reason },
      excerpt: excerpts[at] ?? null,
    };
  });
}

/** One output in full for the viewer: its record (request, checks, cost) and its task's times. */
export async function outputDetail(
  store: Store,
  key: string,
  index: number,
): Promise<Record<string, unknown> | undefined> {
  const task = await store.task(key);
  const output = task === undefined ? undefined : (await store.outputsOf(key))[index];
  if (task === undefined || output === undefined || output.idx !== index) return undefined;
  const run = await store.run(task.run_id);
  const payer = task.paid_run === null ? undefined : await store.run(task.paid_run);
  // The review is the grid's to show: it changes while the viewer is open.
  const simulated = payer !== undefined && isSimulator(payer.base_url);
  // With its `c2pa` and the renditions its sidecar lists.
  const record = withOutputExtras(
    run?.output_dir ?? "",
    reviewRecord(
      run?.output_dir ?? "",
      { ...task, simulated },
      { ...output, review: null, review_note: null },
    ),
    output.path,
  );
  return {
    ...record,
    // A request may inline megabytes of reference images: each is named by size and hash.
    request: redactDataUris(JSON.parse(task.request)),
    /** The output id of the picture (or clip) it was made from, shown beside a caption. */
    upstream_picture: await upstreamPicture(store, task),
    provenance: {
      key: task.key,
      task_id: task.task_id,
      family: task.family,
      endpoint: task.endpoint,
      run: task.paid_run ?? task.run_id,
      queued_at: task.created_at,
      submitted_at: task.submitted_at,
      completed_at: task.completed_at,
      done_at: task.done_at,
    },
  };
}

/** A run's cost panel: what it paid by job beside the estimates, and every run's spend by day. */
export interface CostPanel {
  run: CostReport;
  /** What the store's runs paid by UTC day of completion (a chart where there are several). */
  days: CostReport["groups"];
}

export async function costPanel(store: Store, run: RunRow): Promise<CostPanel> {
  const [byJob, byDay] = await Promise.all([
    store.costReport({ run: run.id }, "job"),
    store.costReport({ all: true }, "day"),
  ]);
  return { run: byJob, days: byDay.groups };
}
