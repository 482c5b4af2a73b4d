import { existsSync } from "node:fs";
import { fileMatches } from "../core/output-files.js";
import { claimAlive } from "../core/process.js";
import { type OutputRow, type TaskRow, TaskState } from "../store/index.js";

/**
 * Where a recorded task goes when a run takes it on (at the start, or as a dependant): the
 * decision is pure (`placementOf`); `factsOf` gathers what it needs from disk.
 */

export type Placement =
  /** Submit it. */
  | "queue"
  /** Leave it: a stand-in, a live claim of another process, or a task that has ended. */
  | "leave"
  /** A dead process's claim: the outcome of its submit is unknown; back to pending, counted. */
  | "release-unknown"
  /** The gateway holds it: poll. */
  | "poll"
  /** Completed: download its outputs (links first refreshed from the gateway). */
  | "download"
  /** Downloaded: check it and make its thumbnails. */
  | "check"
  /** Done, files intact: nothing to pay. */
  | "done"
  /** Done, files intact, a thumbnail or poster gone: check again to make them. */
  | "recheck"
  /** Done, a file gone while its links work: download again. */
  | "redownload"
  /** Done, files gone and links dead, or `--force`: a new task. */
  | "redo";

export interface PlacementFacts {
  /** `--force`: redo tasks already done. */
  force: boolean;
  /** The process named in a submitting task's claim may still be alive. */
  claimAlive: boolean;
  /** Every output file of a done task is on disk with its recorded size and hash. */
  filesIntact: boolean;
  /** A thumbnail or poster recorded for a done task is gone (and post-processing runs). */
  reviewImagesGone: boolean;
  /** Every output of a done task has a link that has not expired. */
  linksLive: boolean;
}

export function placementOf(task: TaskRow, facts: PlacementFacts): Placement {
  switch (task.state) {
    case TaskState.Pending:
      return task.placeholder === 1 ? "leave" : "queue";
    case TaskState.Submitting:
      return facts.claimAlive ? "leave" : "release-unknown";
    case TaskState.Submitted:
    case TaskState.Processing:
      return "poll";
    case TaskState.Completed:
      return "download";
    case TaskState.Downloaded:
      return "check";
    case TaskState.Done:
      if (facts.force) return "redo";
      if (facts.filesIntact) return facts.reviewImagesGone ? "recheck" : "done";
      return facts.linksLive ? "redownload" : "redo";
    case TaskState.Failed:
    case TaskState.Rejected:
    case TaskState.Expired:
    case TaskState.Skipped:
    case TaskState.Held:
      return "leave";
    default: {
      const never: never = task.state;
      throw new Error(`unknown task state ${String(never)}`);
    }
  }
}

/** Reads what `placementOf` needs to know of a task: its claim, and a done task's files. */
export async function factsOf(
  task: TaskRow,
  outputs: () => Promise<OutputRow[]>,
  options: { now: number; force: boolean; ownClaim: string; checksRun: boolean },
): Promise<PlacementFacts> {
  const facts: PlacementFacts = {
    force: options.force,
    claimAlive: task.claimed_by !== options.ownClaim && claimAlive(task.claimed_by),
    filesIntact: false,
    reviewImagesGone: false,
    linksLive: false,
  };
  if (task.state !== TaskState.Done || options.force) return facts;
  const recorded = await outputs();
  facts.filesIntact = true;
  for (const output of recorded)
    if (!(await fileMatches(output.path, output.bytes, output.sha256))) facts.filesIntact = false;
  facts.reviewImagesGone = options.checksRun && reviewImagesGone(recorded);
  facts.linksLive =
    recorded.length > 0 &&
    recorded.every(
      (o) => o.url !== null && (o.expires_at ?? Number.POSITIVE_INFINITY) > options.now,
    );
  return facts;
}

function reviewImagesGone(outputs: readonly OutputRow[]): boolean {
  return outputs.some((output) =>
    [output.thumbnail, output.poster].some((file) => file !== null && !existsSync(file)),
  );
}
