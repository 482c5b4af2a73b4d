import type { Estimated, RunEnd, Stage, StageCounts, StateCounts } from "../engine/index.js";

/**
 * A run as its reporters see it, aggregated from engine events. `applyEvent` folds one event
 * in (O(1), no IO; `now` is passed in), `viewOf` derives what a screen shows at a moment.
 * The state is updated in place: a 10,000-job run sends tens of thousands of events.
 */
export interface RunState {
  runId: number | null;
  name: string;
  outputDir: string | null;
  maxCost: number | null;
  /** The gateway is the built-in simulator. */
  simulator: boolean;
  startedAt: number | null;
  finishedAt: number | null;
  total: number;
  spent: number;
  /** What this run paid itself (its own submits); `spent` also counts tasks paid before. */
  paid: number;
  /** What the tasks this run paid for were estimated at; null until it has finished. */
  estimate: Estimated | null;
  stages: StageCounts;
  /** Of `stages.failed`, the tasks skipped because their upstream failed. */
  skipped: number;
  /** Sum of the progress (0–100) of the tasks in the running stage. */
  runningProgress: number;
  /**
   * Submitted tasks not polled yet, in submit order: when their first poll is due (by `now`).
   * Until then the gateway has said nothing of their progress.
   */
  firstPolls: Map<string, number>;
  groups: Map<string, GroupState>;
  /** Tasks heard of and not done yet: a done task is only counted. */
  tasks: Map<string, TaskState>;
  /** Jobs done per second of the clock, for the last minute. */
  doneBySecond: Map<number, number>;
  rateLimitedUntil: number;
  ratePerSecond: number | null;
  backoffUntil: number;
  failures: Failure[];
  /** Failures by reason, for the summary. */
  reasons: Map<string, number>;
  /** Outputs of done tasks found gone: how many, fetched again or made again. */
  missing: { download: number; redo: number };
  /** Outputs made before into another folder, delivered into the run's. */
  delivered: number;
  /** Done tasks whose outputs were published to object storage, and those that failed to be. */
  published: { done: number; failed: number };
  /** Judges' verdicts heard this run, and the new takes judges' rejections made. */
  judged: { pass: number; fail: number; undecided: number; retakes: number };
  stopping: { reason: RunEnd; message: string } | null;
  end: RunEnd | null;
  /** The run's tasks by store state, once it has finished. */
  counts: StateCounts;
  unknownSubmits: number;
  /** Bumped by every event: a reporter redraws only when it changed. */
  version: number;
}

export interface GroupState {
  job: string;
  family: string | null;
  tasks: number;
  stages: StageCounts;
  skipped: number;
  /** Tasks counted at the start that no event has named yet, by the stage they started in. */
  unseen: StageCounts;
  /** Tasks still to be made from upstream outputs, counted as queued until each is added. */
  awaiting: number;
  runningProgress: number;
}

export interface TaskState {
  job: string;
  stage: Stage;
  progress: number;
}

export interface Failure {
  label: string;
  state: string;
  reason: string;
  at: number;
}
