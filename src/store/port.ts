import type { BudgetStore } from "./budget-port.js";
import type {
  JudgementStore,
  PublicationStore,
  ReportOrder,
  ReportReads,
  ReportScope,
  ReviewStore,
  ViewTokenStore,
} from "./report-port.js";
import type {
  NewRun,
  NewTask,
  OutputCopy,
  OutputRow,
  RowSource,
  RunNotice,
  RunRow,
  TakeRow,
  TaskRow,
  TextAnswerRow,
} from "./rows.js";
import type { LeaseHolder, LeaseRow, TickRow, TickStatus, TickTrigger } from "./schedule-rows.js";
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

/** More of a failure: the output that expired; the submits whose outcome is unknown. */
export interface FailDetail {
  expiredOutput?: number;
  unknownSubmits?: number;
}

export type {
  JudgementStore,
  PublicationStore,
  ReportOrder,
  ReportReads,
  ReportScope,
  ReviewStore,
  ViewTokenStore,
};

/**
 * The store port: everything the engine, the CLI, the scheduler and the reports ask of the
 * state database. Writes are named, guarded transitions: each owns the states it moves from
 * and the columns it sets, commits on its own, and returns the events to publish after commit.
 * A transition whose guard fails (another process moved the task first) changes nothing.
 * `openStore` (SQLite) is the default adapter.
 */
export interface Store
  extends RunStore,
    BudgetStore,
    TaskReads,
    TaskTransitions,
    ReportReads,
    ReviewStore,
    PublicationStore,
    JudgementStore,
    ScheduleStore,
    ViewTokenStore {
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
    /** Its tasks by state as it ended: what the runs page shows of it later. */
    endStates?: Readonly<Record<string, number>>,
  ): Promise<void>;
  /** Keeps the bodies of the run's `rows:` URLs; one kept already for a URL stays. */
  recordRowSources(runId: number, sources: readonly RowSource[]): Promise<void>;
  /** The bodies of `rows:` URLs the run kept, by URL. */
  rowSourcesOf(runId: number): Promise<RowSource[]>;
  /** Keeps what each `from:` job of the run makes per upstream output (JSON). */
  setDependantRules(id: number, rules: string): Promise<void>;
  run(id: number): Promise<RunRow | undefined>;
  /** The latest run, of the manifest named `name` when given. */
  latestRun(name?: string): Promise<RunRow | undefined>;
  /** The latest `limit` runs, newest first. */
  runs(limit: number): Promise<RunRow[]>;
  /** Every run that publishes to object storage (`publish_to` recorded), newest first. */
  publishingRuns(): Promise<RunRow[]>;
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

/** Which of a run's tasks a page holds: all, or those a lane's submits wait for. */
export type TaskPageOf = "all" | "image-queue" | "video-queue";

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
  /**
   * The takes of `task`'s request in a run (same job, variables and upstream: its repeats and
   * retakes), one row per downloaded output (a task without one: a row with `idx` null).
   */
  takesOf(
    runId: number,
    task: Pick<TaskRow, "job_id" | "vars" | "upstream_key">,
  ): Promise<TakeRow[]>;
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
  /**
   * → failed | rejected | expired | held with the reason; `expiredOutput` marks that output
   * expired; `unknownSubmits` counts the task's submits whose outcome is unknown (maybe billed).
   */
  failTask(
    task: TaskRow,
    from: readonly TaskState[],
    to: "failed" | "rejected" | "expired" | "held",
    reason: string,
    now: number,
    detail?: FailDetail,
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
