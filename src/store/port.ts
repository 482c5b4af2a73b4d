import type { JudgedOutputRow, JudgementRow } from "./judgement-rows.js";
import type { CostGrouping, CostReport, CostScope } from "./queries/costs.js";
import type { JudgementAnswer } from "./queries/judgements.js";
import type { JobStateCount, LabelledReview } from "./queries/run-status.js";
import type { TaskPageOf } from "./queries/tasks.js";
import type { Page, PageRange, TimelinePage, TimelineQuery } from "./queries/views.js";
import type {
  FailureRow,
  GridRow,
  LeaseHolder,
  LeaseRow,
  NewRun,
  NewTask,
  OutputCopy,
  OutputRow,
  Publication,
  ReportRow,
  ReportSummary,
  ReviewDecision,
  ReviewRow,
  RunNotice,
  RunRow,
  TaskRow,
  TextAnswerRow,
  TickRow,
  TickStatus,
  TickTrigger,
} from "./rows.js";
import type { TaskState } from "./states.js";
import type { TaskEvent } from "./task-events.js";
import type {
  DownloadedFile,
  OutputCheck,
  OutputLink,
  PollOutcome,
  Receipt,
  RecordedDependant,
} from "./transition-inputs.js";

/**
 * The store port: everything the engine, the CLI, the scheduler and the reports ask of the
 * state database. Writes are named, guarded transitions: each owns the states it moves from
 * and the columns it sets, commits on its own, and returns the events to publish after commit.
 * A transition whose guard fails (another process moved the task first) changes nothing.
 * `openStore` (SQLite) is the default adapter.
 */
export interface Store
  extends RunStore,
    TaskReads,
    TaskTransitions,
    ReportReads,
    ReviewStore,
    PublicationStore,
    JudgementStore,
    ScheduleStore {
  /** The gateway submit rate learned by earlier runs, per base URL. */
  learnedRate(baseUrl: string): Promise<number | undefined>;
  saveLearnedRate(baseUrl: string, rate: number): Promise<void>;
  close(): Promise<void>;
}

export interface RunStore {
  createRun(run: NewRun): Promise<number>;
  /** `stopReason`: why it stopped before its end, for `gwrun status`. */
  finishRun(
    id: number,
    status: string,
    exitCode: number,
    now: number,
    stopReason?: string | null,
  ): Promise<void>;
  /** Keeps what each `from:` job of the run makes per upstream output (JSON). */
  setDependantRules(id: number, rules: string): Promise<void>;
  run(id: number): Promise<RunRow | undefined>;
  /** The latest run, of the manifest named `name` when given. */
  latestRun(name?: string): Promise<RunRow | undefined>;
  /** The latest `limit` runs, newest first. */
  runs(limit: number): Promise<RunRow[]>;
  /** The run of a manifest's tick, if one was started. */
  runOfTick(name: string, tick: number): Promise<RunRow | undefined>;
  /** The scheduled runs of a manifest, newest tick first. */
  scheduledRuns(name: string): Promise<RunRow[]>;
  /** Files recorded for the tasks only this run holds, less any another run also names. */
  filesOfRun(runId: number): Promise<string[]>;
  /** Keeps something the run said (rate limiting, a stop) for viewers of its progress. */
  recordRunNotice(runId: number, notice: RunNotice): Promise<void>;
  /** A run's latest `limit` notices, newest first. */
  runNoticesOf(runId: number, limit: number): Promise<RunNotice[]>;
  /** Forgets a run: its row, events, and the tasks (with outputs and answers) no other run holds. */
  deleteRun(runId: number): Promise<void>;
  /** Runs recorded while the record kept absolute paths (`project_dir` unset), oldest first. */
  legacyRuns(): Promise<RunRow[]>;
  /**
   * Gives legacy runs their paths relative to `root`, and every recorded file below a root
   * its path relative to it, in one transaction.
   */
  rebasePaths(rebases: readonly PathRebase[]): Promise<void>;
}

/** A legacy run's paths made relative to the project folder it was recorded in (`root`). */
export interface PathRebase {
  runId: number;
  root: string;
  manifestPath: string;
  outputDir: string;
}

export interface TaskReads {
  task(key: string): Promise<TaskRow | undefined>;
  /** The tasks of a run, in the order they were recorded. */
  tasksOf(runId: number): Promise<TaskRow[]>;
  /**
   * Up to `limit` of a run's tasks recorded after `after` (a place, 0 for the first), in the
   * order recorded: all, or the pending ones a lane submits (`TaskPageOf`).
   */
  taskPage(
    runId: number,
    of: TaskPageOf,
    after: number,
    limit: number,
  ): Promise<{ place: number; task: TaskRow }[]>;
  /** The recorded tasks among `keys` (any run). */
  tasksByKey(keys: readonly string[]): Promise<Map<string, TaskRow>>;
  /** A manifest job's tasks in an output folder: per label, its current take (as reports show). */
  currentTasksOf(outputDir: string, jobId: string): Promise<TaskRow[]>;
  /** Tasks fed by an upstream task's outputs. */
  dependantsOf(upstreamKey: string): Promise<TaskRow[]>;
  outputsOf(key: string): Promise<OutputRow[]>;
  /** Where a task's outputs were delivered into other output folders than their own. */
  copiesOf(key: string): Promise<OutputCopy[]>;
  /** The output whose recorded file (or delivered copy) is `path`, if any. */
  outputAt(path: string): Promise<{ key: string; idx: number } | undefined>;
  textAnswer(key: string): Promise<TextAnswerRow | undefined>;
}

export interface TaskTransitions {
  /**
   * Records tasks for a run: new keys are inserted pending; known keys join the run as they
   * are. Returns the keys that were new.
   */
  recordTasks(runId: number, tasks: readonly NewTask[], now: number): Promise<Set<string>>;
  /**
   * pending → submitting, claimed by `owner`, one attempt more; `claimed` leaves out the tasks
   * another process took first.
   */
  claimForSubmit(
    tasks: readonly TaskRow[],
    owner: string,
    now: number,
  ): Promise<{ claimed: TaskRow[]; events: TaskEvent[] }>;
  /**
   * submitting → submitted | processing with the task id: from here it is polled, never resent.
   * A receipt whose task id another task holds already is not recorded: `duplicates` gives,
   * by the key of its task, the label of the task that holds it.
   */
  recordReceipts(
    receipts: readonly Receipt[],
    now: number,
  ): Promise<{ events: TaskEvent[]; duplicates: Map<string, string> }>;
  /**
   * submitting → pending, unclaimed: the submit was not made (402, a stop) or its outcome is
   * unknown (`unknownSubmits` more tries counted).
   */
  releaseClaim(
    task: TaskRow,
    release: { reason?: string | null; unknownSubmits: number },
    now: number,
  ): Promise<boolean>;
  /**
   * One poll round in one transaction: running tasks note progress, completed ones record
   * their output links and cost, failed ones their reason. `lost` names the tasks another
   * process had already moved on.
   */
  recordPollRound(
    round: readonly { task: TaskRow; outcome: PollOutcome }[],
    now: number,
  ): Promise<{ events: TaskEvent[]; lost: Set<string> }>;
  /** Records outputs delivered into another output folder (replacing an earlier copy there). */
  recordCopies(copies: readonly OutputCopy[]): Promise<void>;
  /** Replaces a completed task's output links (the gateway's current ones). */
  updateLinks(key: string, links: readonly OutputLink[]): Promise<void>;
  /**
   * Records downloaded files; a task whose every output is on disk moves completed →
   * downloaded (its key is in `complete`).
   */
  recordDownloads(
    files: readonly DownloadedFile[],
    now: number,
  ): Promise<{ events: TaskEvent[]; complete: Set<string> }>;
  /**
   * A text task's answer, its files as outputs and submitting → downloaded, together; the
   * task's `cost` is what the answer cost (by its usage), or null.
   */
  recordTextAnswer(
    task: TaskRow,
    answer: Omit<TextAnswerRow, "job_key" | "answered_at">,
    files: readonly Omit<DownloadedFile, "task" | "idx">[],
    now: number,
  ): Promise<{ moved: boolean; events: TaskEvent[] }>;
  /** Keeps each output's checks; a task whose every check passed moves downloaded → done. */
  recordChecks(
    checked: readonly { task: TaskRow; checks: readonly OutputCheck[] }[],
    now: number,
  ): Promise<{ done: Set<string>; events: TaskEvent[] }>;
  /** downloaded → done (a task without checks). */
  markDone(task: TaskRow, now: number): Promise<TaskEvent[]>;
  /** Back to pending for a new task: its task id, cost, progress and outputs forgotten. */
  requeue(
    task: TaskRow,
    from: readonly TaskState[],
    reason: string | null,
    now: number,
  ): Promise<boolean>;
  /** failed → submitted | processing: a task polling gave up on is polled again, afresh. */
  repoll(task: TaskRow, now: number): Promise<boolean>;
  /** done → completed: a file is gone and its links still work; its outputs download again. */
  redownload(task: TaskRow, now: number): Promise<boolean>;
  /** done → downloaded: files intact, a thumbnail or poster gone; it is checked again. */
  recheck(task: TaskRow, now: number): Promise<boolean>;
  /** → failed | rejected | expired | held with the reason; `expiredOutput` marks that output expired. */
  failTask(
    task: TaskRow,
    from: readonly TaskState[],
    to: "failed" | "rejected" | "expired" | "held",
    reason: string,
    now: number,
    expiredOutput?: number,
  ): Promise<TaskEvent[]>;
  /**
   * Records the dependants of an upstream's outputs: its stand-ins go, skipped dependants come
   * back pending, and pending ones get their request bound afresh.
   */
  recordDependants(
    runId: number,
    upstream: TaskRow,
    dependants: readonly { task: NewTask; problem: string | null }[],
    now: number,
  ): Promise<{ dependants: RecordedDependant[]; events: TaskEvent[] }>;
  /**
   * Records a failed upstream's dependants skipped with the reason: its stand-ins, and real
   * dependants of an earlier success still pending.
   */
  recordSkipped(
    runId: number,
    upstream: TaskRow,
    standIns: readonly NewTask[],
    reason: string,
    now: number,
  ): Promise<TaskEvent[]>;
}

/**
 * What a report covers: the tasks one run recorded, or those of an output folder — every
 * task the runs into that folder recorded, one per label: the latest run's take of it.
 */
export type ReportScope = { run: number } | { folder: string };

export interface ReportReads {
  /**
   * Every task in scope with its outputs (one row per output, one for a task without any),
   * the tasks of one manifest job together, in the order recorded, read a page at a time.
   */
  reportRows(scope: ReportScope): AsyncIterable<ReportRow>;
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
  /** How many of a run's own tasks it moved to a final state since `startedAt` (ms). */
  finishedCountOf(runId: number, startedAt: number): Promise<number>;
}

/** What reviewers decided about outputs: approved or rejected, with an optional note. */
export interface ReviewStore {
  /**
   * Records the decision on a downloaded output (null clears it), replacing an earlier one;
   * false when no such output is on disk.
   */
  recordReview(
    review: { key: string; index: number; decision: ReviewDecision | null; note: string | null },
    now: number,
  ): Promise<boolean>;
  /** The reviews of the outputs in scope, in the order their tasks were recorded. */
  reviewsOf(scope: ReportScope): Promise<ReviewRow[]>;
}

/** Objects outputs were published as (`output.publish`). */
export interface PublicationStore {
  /** Records objects as verified after their upload, replacing what was recorded of each. */
  recordPublications(published: readonly Publication[]): Promise<void>;
  /** What of a task's outputs is published, by output, target and part. */
  publicationsOf(key: string): Promise<Publication[]>;
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

export interface ScheduleStore {
  recordTickNotRun(
    tick: {
      name: string;
      tick: number;
      status: "skipped" | "missed";
      trigger: TickTrigger;
      reason: string;
    },
    now: number,
  ): Promise<void>;
  /** Records a tick whose run starts now (an unfinished record of it is taken up again); its id. */
  startTick(
    tick: { name: string; tick: number; trigger: TickTrigger },
    now: number,
  ): Promise<number>;
  finishTick(
    id: number,
    end: { runId: number | null; exitCode: number; status: TickStatus },
    now: number,
  ): Promise<void>;
  /** The latest `limit` tick records of a manifest, newest first. */
  ticksOf(name: string, limit: number): Promise<TickRow[]>;
  /** The latest tick any scheduler or one-shot run handled for a manifest. */
  lastTickAt(name: string): Promise<number | undefined>;
  /** Ticks whose run started and did not finish, oldest first. */
  unfinishedTicks(name: string): Promise<TickRow[]>;
  deleteTicksBefore(name: string, before: number): Promise<void>;
  /**
   * Takes the lease of `name` for `ttlMs` when it is free, expired, or its holder is gone
   * (`isGone`); otherwise says who holds it. Two processes asking at once cannot both get it.
   */
  acquireLease(
    name: string,
    holder: LeaseHolder,
    now: number,
    ttlMs: number,
    isGone: (lease: LeaseRow) => boolean,
  ): Promise<{ acquired: true } | { acquired: false; lease: LeaseRow }>;
  /** Extends a held lease; false when it is no longer this holder's. */
  renewLease(name: string, holderId: string, now: number, ttlMs: number): Promise<boolean>;
  releaseLease(name: string, holderId: string): Promise<void>;
  leaseOf(name: string): Promise<LeaseRow | undefined>;
}
