import { type TaskRow, TaskState } from "../store/index.js";
import type { Placement } from "./placement.js";

/**
 * What a run would do with a task, as `gwrun plan` shows it. Derived from the engine's own
 * decision (`placementOf`), so the plan cannot promise what the run does not do.
 *
 * - new: not recorded, or recorded and to be submitted (again): it will be paid for.
 * - done: done, its files intact: nothing to do, nothing to pay.
 * - in_flight: the gateway holds it (its task id is polled, never resubmitted), or its outputs
 *   are to be downloaded (again) or checked, or another live process is submitting it.
 * - failed: failed, rejected or skipped: a run leaves it; `gwrun retry --failed` redoes it.
 * - expired: the task or its links expired: a run leaves it; `gwrun retry --expired` redoes it.
 */
export const TaskStatus = {
  New: "new",
  Done: "done",
  InFlight: "in_flight",
  Failed: "failed",
  Expired: "expired",
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** Tasks by status. */
export type StatusCounts = Record<TaskStatus, number>;

export function emptyCounts(): StatusCounts {
  return { new: 0, done: 0, in_flight: 0, failed: 0, expired: 0 };
}

/** The status of a recorded task the engine would place at `placement`. */
export function statusOf(task: TaskRow, placement: Placement): TaskStatus {
  switch (placement) {
    case "queue":
    case "redo":
    // A dead process's claim: its submit's outcome is unknown, so the run submits it again.
    case "release-unknown":
      return TaskStatus.New;
    case "poll":
    case "download":
    case "check":
    case "recheck":
    case "redownload":
      return TaskStatus.InFlight;
    case "done":
    // Delivered into the run's folder from another: nothing to pay, nothing to fetch.
    case "deliver":
      return TaskStatus.Done;
    case "leave":
      return leftAs(task.state);
    default: {
      const never: never = placement;
      throw new Error(`unknown placement ${String(never)}`);
    }
  }
}

/** Why a run leaves a task alone, by its state. */
function leftAs(state: TaskState): TaskStatus {
  switch (state) {
    // Claimed by another process that is alive: it is being submitted now.
    case TaskState.Submitting:
      return TaskStatus.InFlight;
    case TaskState.Expired:
      return TaskStatus.Expired;
    // A pending task is left only when it stands in for the dependants of a failed upstream.
    case TaskState.Pending:
    case TaskState.Failed:
    case TaskState.Rejected:
    case TaskState.Skipped:
    case TaskState.Held:
      return TaskStatus.Failed;
    case TaskState.Submitted:
    case TaskState.Processing:
    case TaskState.Completed:
    case TaskState.Downloaded:
    case TaskState.Done:
      throw new Error(`a run does not leave a ${state} task`);
    default: {
      const never: never = state;
      throw new Error(`unknown task state ${String(never)}`);
    }
  }
}
