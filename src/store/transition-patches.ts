import type { MovePatch } from "./move.js";
import type { NewTask, TaskRow } from "./rows.js";
import { RUNNING_STATES, TaskState } from "./states.js";
import { completedEvent, progressEvent, submittedEvent, submittingEvent } from "./task-event-of.js";
import type { TaskEvent } from "./task-events.js";
import type { OutputCheck, OutputLink, PollOutcome, Receipt } from "./transition-inputs.js";

/**
 * What each named transition does to a task, without SQL: the states it may leave, the state
 * it enters, the columns it sets. The programs (`./transitions/`) make the moves, each
 * adapter in its own dialect (`./program.ts`).
 */

const { Pending, Submitting, Submitted, Processing, Completed, Downloaded, Done, Skipped } =
  TaskState;

/** One guarded move: from one of `from` to `to`, setting `patch`. */
export interface Transition {
  from: readonly TaskState[];
  to: TaskState;
  patch: MovePatch;
}

/** The states a task may be failed into (the port's `failTask`). */
export type FailState = "failed" | "rejected" | "expired" | "held";

/** pending → submitting for `owner`: the row as claimed, and what the claim announces. */
export function claimOf(
  task: TaskRow,
  owner: string,
): Transition & { claimed: TaskRow; event: TaskEvent } {
  const attempts = task.attempts + 1;
  return {
    from: [Pending],
    to: Submitting,
    patch: { claimed_by: owner, attempts },
    claimed: { ...task, state: Submitting, claimed_by: owner, attempts },
    event: submittingEvent(task),
  };
}

/** submitting → submitted | processing: the gateway took it; polling starts at `nextPollAt`. */
export function receiptOf(receipt: Receipt, now: number): Transition & { event: TaskEvent } {
  return {
    from: [Submitting],
    to: receipt.status,
    patch: {
      task_id: receipt.taskId,
      submitted_at: now,
      next_poll_at: receipt.nextPollAt,
      claimed_by: null,
      unknown_submits: receipt.task.unknown_submits + receipt.unknownSubmits,
      paid_run: receipt.task.run_id,
    },
    event: submittedEvent(receipt, now),
  };
}

/** submitting → pending: a claim given back, counting the submits whose outcome is unknown. */
export function releaseOf(
  task: TaskRow,
  release: { reason?: string | null; unknownSubmits: number },
): Transition {
  return {
    from: [Submitting],
    to: Pending,
    patch: {
      claimed_by: null,
      unknown_submits: task.unknown_submits + release.unknownSubmits,
      ...(release.reason === undefined ? {} : { reason: release.reason }),
    },
  };
}

/**
 * What one poll answer does to its task: a move (its output links recorded with it when it
 * completed), a note of progress on a task already in its state, or a failure. `events` are
 * reported only when the move or note took.
 */
export type PollStep =
  | { kind: "move"; move: Transition; links: readonly OutputLink[] | null; events: TaskEvent[] }
  | { kind: "note"; progress: number; polls: number; nextPollAt: number; events: TaskEvent[] }
  | { kind: "fail"; from: readonly TaskState[]; to: FailState; reason: string };

export function pollStepOf(task: TaskRow, outcome: PollOutcome, now: number): PollStep {
  const polls = task.polls + 1;
  switch (outcome.kind) {
    case "running": {
      const { progress, nextPollAt } = outcome;
      const events = progress !== task.progress ? [progressEvent(task, progress)] : [];
      if (outcome.status === Processing && task.state !== Processing)
        return {
          kind: "move",
          move: {
            from: [Submitted],
            to: Processing,
            patch: { started_at: now, progress, polls, next_poll_at: nextPollAt },
          },
          links: null,
          events,
        };
      return { kind: "note", progress, polls, nextPollAt, events };
    }
    case "completed":
      return {
        kind: "move",
        move: {
          from: RUNNING_STATES,
          to: Completed,
          patch: {
            cost: outcome.cost,
            completed_at: now,
            progress: 100,
            polls,
            next_poll_at: null,
          },
        },
        links: outcome.links,
        events: [completedEvent(task, outcome)],
      };
    case "failed":
      return { kind: "fail", from: RUNNING_STATES, to: outcome.to, reason: outcome.reason };
    default: {
      const never: never = outcome;
      throw new Error(`unknown poll outcome ${JSON.stringify(never)}`);
    }
  }
}

/** → pending for a new task: its task id, cost, progress and times forgotten (outputs too). */
export function requeueOf(from: readonly TaskState[], reason: string | null): Transition {
  return {
    from,
    to: Pending,
    patch: {
      task_id: null,
      claimed_by: null,
      cost: null,
      progress: null,
      next_poll_at: null,
      completed_at: null,
      done_at: null,
      reason,
    },
  };
}

/** failed → polled again; its deadline counts from now: `submitted_at` is when polling (re)started. */
export function repollOf(task: TaskRow, now: number): Transition {
  return {
    from: [TaskState.Failed],
    to: task.started_at === null ? Submitted : Processing,
    patch: { reason: null, next_poll_at: now, submitted_at: now },
  };
}

/** done → completed: its outputs download again. */
export const REDOWNLOAD: Transition = { from: [Done], to: Completed, patch: { done_at: null } };

/** done → downloaded: its outputs are checked again. */
export const RECHECK: Transition = { from: [Done], to: Downloaded, patch: { done_at: null } };

export function failOf(
  from: readonly TaskState[],
  to: FailState,
  reason: string,
  unknown?: { task: Pick<TaskRow, "unknown_submits">; unknownSubmits: number },
): Transition {
  const counted =
    unknown === undefined || unknown.unknownSubmits === 0
      ? {}
      : { unknown_submits: unknown.task.unknown_submits + unknown.unknownSubmits };
  return { from, to, patch: { reason, claimed_by: null, next_poll_at: null, ...counted } };
}

/** completed → downloaded once its last output is on disk. */
export const ALL_DOWNLOADED: Transition = { from: [Completed], to: Downloaded, patch: {} };

/** submitting → downloaded: a text task answered at once, its answer kept as its outputs. */
export function textAnsweredOf(task: TaskRow, now: number): Transition {
  return {
    from: [Submitting],
    to: Downloaded,
    patch: {
      claimed_by: null,
      submitted_at: now,
      completed_at: now,
      paid_run: task.run_id,
      cost: task.cost,
    },
  };
}

/** downloaded → done. */
export function doneOf(now: number): Transition {
  return { from: [Downloaded], to: Done, patch: { done_at: now } };
}

/** The values an output row keeps of its check: its verdict and what was measured. */
export function checkColumnsOf(check: OutputCheck): {
  checkState: "ok" | "failed";
  checks: string;
} {
  return {
    checkState: check.ok ? "ok" : "failed",
    checks: JSON.stringify({ problems: check.problems, ...check.details }),
  };
}

/** skipped → pending: the upstream that failed once has given its input now. */
export const UNSKIP: Transition = { from: [Skipped], to: Pending, patch: { reason: null } };

/** How the reason of a task whose text answer refused begins (see `src/engine/refusals.ts`). */
export const REFUSED = "refused: ";

/**
 * pending → skipped below a failed upstream; `reason` says which and why, for its event:
 * "upstream X failed: …", or "upstream X refused: …" below a refusal.
 */
export function skipOf(upstream: TaskRow, reason: string): Transition & { reason: string } {
  const verb = reason.startsWith(REFUSED) ? "" : "failed: ";
  const why = `upstream ${upstream.label} ${verb}${reason}`;
  return { from: [Pending], to: Skipped, patch: { reason: why }, reason: why };
}

/**
 * What a failed upstream skips: its real dependants recorded earlier and not sent yet (they
 * cannot be sent now either), then its stand-ins.
 */
export function skippedKeysOf(
  recorded: readonly TaskRow[],
  standIns: readonly NewTask[],
): string[] {
  const waiting = recorded.filter((row) => row.placeholder !== 1 && row.state === Pending);
  return [...waiting.map((row) => row.key), ...standIns.map((task) => task.key)];
}
