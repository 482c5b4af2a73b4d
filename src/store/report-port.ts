import type { JudgedOutputRow, JudgementRow } from "./judgement-rows.js";
import type {
  FailureRow,
  GridRow,
  JudgeVerdict,
  Publication,
  ReportRow,
  ReportSummary,
  ReviewDecision,
  ReviewRow,
  RunSummary,
  TextAnswerRow,
  TimelineRow,
} from "./rows.js";
import type { TaskState } from "./states.js";

/**
 * The store port's reads of the record (reports, the viewer's pages, costs) and what people,
 * judges and uploads recorded of outputs: part of `Store` (`port.ts`).
 */

/**
 * What a report covers: the tasks one run recorded, or those of an output folder — every
 * task the runs into that folder recorded, one per label: the latest run's take of it.
 */
export type ReportScope = { run: number } | { folder: string };

/**
 * A scope's tasks as its report lists them, found once: where each was recorded, in order,
 * and the folder whose copies it shows. Two scopes with the same places list the same rows.
 */
export interface ReportOrder {
  places: readonly number[];
  folder: string | null;
}

/** How `gwrun cost` and the viewer's cost panel group what was paid. */
export const COST_GROUPINGS = ["job", "model", "family", "day"] as const;
export type CostGrouping = (typeof COST_GROUPINGS)[number];

/** The tasks a run paid for, or every task the store holds. */
export type CostScope = { run: number } | { all: true };

/** How a sum of money was estimated. */
export interface Estimated {
  /** The sum of the prices known before the tasks ran, `unknown_cost` for those without. */
  estimate: number;
  /** Tasks of unknown price counted at their run's `limits.unknown_cost`. */
  atUnknownCost: number;
  /** Tasks of unknown price whose run set no `unknown_cost`: not in `estimate`. */
  unpriced: number;
}

export interface CostGroup extends Estimated {
  /** The job id, model, family id, or UTC day (YYYY-MM-DD) of completion. */
  key: string;
  spent: number;
  tasks: number;
}

/** What was paid in a cost report's scope, by group, with the estimate beside it. */
export interface CostReport extends Estimated {
  spent: number;
  groups: CostGroup[];
}

/** Which rows of a list: `limit` of them after the first `offset`. */
export interface PageRange {
  offset: number;
  limit: number;
}

/** A page of rows, and how many there are in all. */
export interface Page<R> {
  total: number;
  rows: R[];
}

/** How the timeline is ordered: as recorded, the slowest first, or the unfinished first. */
export const TIMELINE_ORDERS = ["recorded", "slowest", "failed"] as const;
export type TimelineOrder = (typeof TIMELINE_ORDERS)[number];

export interface TimelineQuery extends PageRange {
  /** The run's start, ms: a task an earlier run finished, and left alone since, is not its own. */
  startedAt: number;
  order: TimelineOrder;
  /** Only the tasks that ended without their outputs, or are held. */
  undoneOnly: boolean;
}

/** A page of the timeline, with the first queue time and last move of all its tasks. */
export interface TimelinePage extends Page<TimelineRow> {
  start: number | null;
  end: number | null;
}

/** How many of a job's tasks are in a state, and its family. */
export interface JobStateCount {
  job_id: string;
  family: string | null;
  state: TaskState;
  n: number;
}

/** A review of a run's output with its task's label. */
export interface LabelledReview {
  label: string;
  idx: number;
  decision: ReviewDecision;
  note: string | null;
}

export interface ReportReads {
  /**
   * Every task in scope with its outputs (one row per output, one for a task without any),
   * the tasks of one manifest job together, in the order recorded, read a page at a time.
   */
  reportRows(of: ReportScope | ReportOrder): AsyncIterable<ReportRow>;
  /** The order `reportRows` lists a scope's tasks in (their places), read once. */
  reportOrderOf(scope: ReportScope): Promise<ReportOrder>;
  /** The tasks in scope that ended without their outputs. */
  failuresOf(scope: ReportScope): AsyncIterable<FailureRow>;
  summaryOf(scope: ReportScope): Promise<ReportSummary>;
  /** What a run (or the whole store) paid by job, model, family or day, with the estimates. */
  costReport(scope: CostScope, by: CostGrouping): Promise<CostReport>;
  /** The stored answers of a run's text tasks, with each task's label. */
  textAnswersOf(runId: number): Promise<(TextAnswerRow & { label: string })[]>;
  /** A page of a run's downloaded outputs with their variables and reviews, for a review grid. */
  gridPageOf(runId: number, range: PageRange): Promise<Page<GridRow>>;
  /** A page of a run's own tasks (stand-ins left out) with when each was queued, sent, finished, fetched. */
  timelinePageOf(runId: number, query: TimelineQuery): Promise<TimelinePage>;
  /** A page of a run's tasks that ended without their outputs. */
  failuresPageOf(runId: number, range: PageRange): Promise<Page<FailureRow>>;
  /** A run's tasks counted by job, family and state, jobs in the order first recorded. */
  jobStatesOf(runId: number): Promise<JobStateCount[]>;
  /** Finished results of a run not downloaded yet whose links expire before `before` (ms). */
  expiringOf(runId: number, before: number): Promise<{ label: string; expires_at: number }[]>;
  /** A run's reviews with their tasks' labels. */
  labelledReviewsOf(runId: number): Promise<LabelledReview[]>;
  /**
   * Removes the logged moves of finished tasks in finished runs (what status, reports and
   * sidecars show is kept in the tasks' rows): how many lines went.
   */
  pruneTaskEvents(): Promise<number>;
  /**
   * Gives the space of removed rows back (SQLite: VACUUM, the file shrinks; PostgreSQL:
   * VACUUM of the event log, for reuse). False when another process holds the database now.
   */
  reclaimSpace(): Promise<boolean>;
  /**
   * A run's summary, and how many of its own tasks it moved to a final state since
   * `startedAt` (ms), counted in the same pass.
   */
  runSummaryOf(runId: number, startedAt: number): Promise<RunSummary>;
}

/** What reviewers decided about outputs: approved or rejected, with an optional note. */
export interface ReviewStore {
  /**
   * Records the decision on a downloaded output (null clears it), replacing an earlier one;
   * false when no such output is on disk.
   */
  recordReview(
    review: {
      key: string;
      index: number;
      decision: ReviewDecision | null;
      note: string | null;
      /** Who decided, when not a person at the viewer ("agent"). */
      by?: string | null;
    },
    now: number,
  ): Promise<boolean>;
  /** The reviews of the outputs in scope, in the order their tasks were recorded. */
  reviewsOf(scope: ReportScope): Promise<ReviewRow[]>;
}

/** A reviewer of the shared viewer (`view_tokens`); the token itself is never kept. */
export interface ViewTokenRow {
  name: string;
  token_sha256: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Who may use a shared `gwrun view`: one token per reviewer's name, kept as its sha256. */
export interface ViewTokenStore {
  /** Records a reviewer's token (times in ms), replacing the name's earlier one and its revocation. */
  recordViewToken(invite: {
    name: string;
    tokenSha256: string;
    createdAt: number;
    expiresAt: number;
  }): Promise<void>;
  /** Revokes a name's token; false when there is none, or it was revoked already. */
  revokeViewToken(name: string, now: number): Promise<boolean>;
  /** The reviewer whose token has this sha256 (revoked or expired ones too: the caller judges). */
  viewTokenOf(tokenSha256: string): Promise<ViewTokenRow | undefined>;
  /** Every reviewer invited, by name. */
  viewTokens(): Promise<ViewTokenRow[]>;
}

/** Objects outputs were published as (`output.publish`). */
export interface PublicationStore {
  /** Records objects as verified after their upload, replacing what was recorded of each. */
  recordPublications(published: readonly Publication[]): Promise<void>;
  /** What of a task's outputs is published, by output, target and part. */
  publicationsOf(key: string): Promise<Publication[]>;
}

/** A judge's verdict on one output, as recorded once the judge answered. */
export interface JudgementAnswer {
  key: string;
  idx: number;
  verdict: JudgeVerdict;
  reason: string | null;
  answer: string;
  cost: number | null;
}

/**
 * What judges said of outputs: `asking` recorded before the call, the verdict once after.
 * A judgement recorded is never asked again.
 */
export interface JudgementStore {
  /** Records that the output's judge is being asked, unless it is already; the row as it stands. */
  askJudge(asked: { key: string; idx: number; model: string }, now: number): Promise<JudgementRow>;
  /** asking → judged, the cost added to the task's; false when it was recorded already. */
  recordJudgement(judged: JudgementAnswer, now: number): Promise<boolean>;
  /** A task's judgements, by output. */
  judgementsOf(key: string): Promise<JudgementRow[]>;
  /** The judged outputs in scope with any person's decision, in the order recorded. */
  judgedOutputs(scope: ReportScope): Promise<JudgedOutputRow[]>;
}
