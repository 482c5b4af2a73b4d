import type { TaskRow } from "./rows.js";
import type { TaskEvent } from "./task-events.js";
import type { OutputCheck, PollOutcome, Receipt } from "./transition-inputs.js";

/**
 * The task events each transition reports, built from the rows it moved: one run announces
 * the same things whichever store it keeps.
 */

/** A task as events name it. */
export function named(task: TaskRow): { key: string; job: string; label: string } {
  return { key: task.key, job: task.job_id, label: task.label };
}

export function submittingEvent(task: TaskRow): TaskEvent {
  return { type: "task:submitting", ...named(task) };
}

export function submittedEvent(receipt: Receipt, now: number): TaskEvent {
  return {
    type: "task:submitted",
    ...named(receipt.task),
    taskId: receipt.taskId,
    firstPollInMs: Math.max(0, receipt.nextPollAt - now),
  };
}

export function progressEvent(task: TaskRow, progress: number): TaskEvent {
  return { type: "task:progress", ...named(task), progress };
}

export function completedEvent(
  task: TaskRow,
  outcome: Extract<PollOutcome, { kind: "completed" }>,
): TaskEvent {
  return {
    type: "task:completed",
    ...named(task),
    cost: outcome.cost,
    outputs: outcome.links.length,
    ...(outcome.surplus === undefined ? {} : { surplus: outcome.surplus }),
  };
}

export function downloadedEvent(task: TaskRow, file: { path: string; bytes: number }): TaskEvent {
  return { type: "output:downloaded", ...named(task), path: file.path, bytes: file.bytes };
}

export function checkedEvent(task: TaskRow, check: OutputCheck): TaskEvent {
  return {
    type: "output:checked",
    key: task.key,
    label: task.label,
    index: check.index,
    ok: check.ok,
    problems: check.problems,
    thumbnail: check.thumbnail,
  };
}

export function doneEvent(task: TaskRow): TaskEvent {
  return { type: "task:done", ...named(task) };
}

export function failedEvent(task: TaskRow, state: string, reason: string): TaskEvent {
  return { type: "task:failed", ...named(task), state, reason };
}

/** A dependant (or stand-in) recorded for the first time, below its upstream. */
export function addedEvent(task: TaskRow, upstream: TaskRow): TaskEvent {
  return { type: "task:added", ...named(task), upstream: upstream.label, family: task.family };
}
