import type { Estimated, TaskEvent } from "../store/index.js";

/** What the engine publishes as a run goes; reporters subscribe, they never drive. */
export type RunEnd = "done" | "failed" | "budget" | "balance" | "interrupted";

export interface StateCounts {
  [state: string]: number;
}

/** Where a task stands, as a person watching the run sees it. */
export type Stage =
  | "queued"
  | "submitting"
  | "running"
  | "downloading"
  | "postprocessing"
  | "done"
  | "failed";

export type StageCounts = Record<Stage, number>;

/**
 * One job id of the manifest at the start of a run: its family and its tasks by the stage the
 * run takes them on in. A `from:` job's group is there from the start, its tasks awaiting
 * their upstream's outputs counted apart until `task:added` makes each.
 */
export interface JobGroup {
  job: string;
  family: string | null;
  lane: string;
  tasks: number;
  stages: StageCounts;
  /** Of `stages.failed`, those skipped because their upstream failed. */
  skipped?: number;
  /** Tasks not made yet, awaiting their upstream's outputs (not in `tasks`). */
  awaiting?: number;
}

export type EngineEvent =
  | TaskEvent
  | {
      type: "run:started";
      runId: number;
      /** Manifest job ids in the run (dependants' included). */
      jobs: number;
      /** The tasks they expand into, recorded so far. */
      tasks: number;
      /** Tasks still to be made from upstream outputs, as the plan counts them; `task:added` makes each. */
      awaiting: number;
      /** Tasks done before this run started (files intact). */
      alreadyDone: number;
      /** The manifest's run name. */
      name: string;
      /** The run's output folder (absolute). */
      outputDir: string;
      /** `limits.max_cost`, or null when the manifest sets none. */
      maxCost: number | null;
      /** What the jobs already done cost. */
      spent: number;
      /** What this run paid before this process (a resumed run). */
      paid: number;
      /** True when the gateway is the built-in simulator: stand-in outputs, no real money. */
      simulator: boolean;
      groups: JobGroup[];
    }
  | { type: "task:postprocessing"; key: string; job: string; label: string }
  | {
      /** A judge's verdict on one output; `retake`: the label of the new take it made, if any. */
      type: "task:judged";
      key: string;
      job: string;
      label: string;
      index: number;
      verdict: "pass" | "fail" | "undecided";
      reason: string | null;
      retake: string | null;
    }
  | {
      type: "output:missing";
      key: string;
      job: string;
      label: string;
      /** Files of a done task not on disk with their recorded bytes, anywhere recorded. */
      files: string[];
      /** What the run does: fetch them again (the links still work), or make the task again. */
      action: "download" | "redo";
    }
  | {
      type: "output:delivered";
      key: string;
      job: string;
      label: string;
      /** Files of a task done into another output folder, linked or copied into the run's. */
      outputs: number;
    }
  | {
      type: "output:published";
      key: string;
      job: string;
      label: string;
      /** Why some output is not in every target of `output.publish`; null: all there. */
      failed: string | null;
    }
  | { type: "text:progress"; key: string; label: string; chars: number }
  | { type: "gateway:retry"; what: string; delayMs: number; reason: string }
  | { type: "gateway:rate-limited"; retryAfterMs: number; ratePerSecond: number }
  | { type: "run:stopping"; reason: RunEnd; message: string }
  | {
      type: "run:finished";
      end: RunEnd;
      counts: StateCounts;
      /** What the run's tasks cost in all, whichever run paid. */
      spent: number;
      /** What this run paid itself. */
      paid: number;
      /** What the tasks it paid for were estimated at. */
      estimate: Estimated;
      unknownSubmits: number;
    };

export type Emit = (event: EngineEvent) => void;
