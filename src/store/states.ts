/**
 * The task state machine, written down once. Every transition the store makes is one of the
 * named transitions of the `Store` port, and each is checked against this table.
 *
 *   pending ──claim──▶ submitting ──receipt──▶ submitted ──poll──▶ processing ──poll──▶ completed
 *                         │                        │                   │                   │
 *                         │ text answer            └──────poll─────────┴──▶ failed        │ downloads
 *                         ▼                                                 expired        ▼
 *                      downloaded ◀──────────────────────────────────────────────────── downloaded ──checks──▶ done
 *                                                                            check failed: failed, or pending (retry)
 *
 * - pending: known, not yet sent. submitting: claimed by a process, request leaving; found
 *   after that process died it means "outcome unknown" and goes back to pending (counted).
 *   A 402 or a stop while sending also puts it back (not billed).
 * - submitted / processing: the gateway has a task id; it is polled, never resubmitted.
 * - completed: the gateway finished; outputs are being downloaded.
 * - downloaded: every output is on disk and hashed; post-processing checks it and makes its
 *   thumbnails. A failed check ends the task `failed`, or, with `checks: { on_fail: retry }`
 *   and attempts left, requeues it (a new task).
 * - done: finished, every check passed. A later run moves it back: to downloaded when its
 *   files are intact but a thumbnail or poster is gone (to make them again), to completed when
 *   a file is gone and its links still work (download again), to pending otherwise or with
 *   `--force` (redo).
 * - held: its submit may have made the task (a reset or 5xx) and `retry.on_unknown_submit` is
 *   `hold`: it waits, with the reason, for `gwrun retry --held` rather than risk a second charge.
 * - failed (the gateway or retries gave up), rejected (the gateway refused the request: 400,
 *   401, 422), expired (the task or its links are gone), skipped (its upstream failed).
 *   `gwrun retry` requeues them; a skipped task is requeued when its upstream succeeds. A
 *   task polling gave up on goes back to submitted or processing (`retry --stuck`). A
 *   pending dependant whose input cannot be sent (a dead link where the family takes no Data
 *   URI) fails unsent.
 */
export const TaskState = {
  Pending: "pending",
  Submitting: "submitting",
  Submitted: "submitted",
  Processing: "processing",
  Completed: "completed",
  Downloaded: "downloaded",
  Done: "done",
  Failed: "failed",
  Rejected: "rejected",
  Expired: "expired",
  Skipped: "skipped",
  Held: "held",
} as const;
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

const {
  Pending,
  Submitting,
  Submitted,
  Processing,
  Completed,
  Downloaded,
  Done,
  Failed,
  Rejected,
  Expired,
  Skipped,
  Held,
} = TaskState;

/** Allowed moves: from → the states it may go to. */
export const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  [Pending]: [Submitting, Skipped, Failed],
  [Submitting]: [Submitted, Processing, Downloaded, Pending, Failed, Rejected, Held],
  [Submitted]: [Processing, Completed, Failed, Expired],
  [Processing]: [Completed, Failed, Expired],
  [Completed]: [Downloaded, Failed, Expired],
  [Downloaded]: [Done, Failed, Pending],
  [Done]: [Pending, Completed, Downloaded],
  [Failed]: [Pending, Submitted, Processing],
  [Rejected]: [Pending],
  [Expired]: [Pending],
  [Skipped]: [Pending],
  [Held]: [Pending],
};

/** States in which the gateway holds a task. */
export const RUNNING_STATES: readonly TaskState[] = [Submitted, Processing];

/**
 * States a task is in flight in: being submitted or held by the gateway. Its reservation
 * counts against the budget, and against the lane's cap (`gwrun_in_flight` in SQL).
 */
export const IN_FLIGHT_STATES: readonly TaskState[] = [Submitting, ...RUNNING_STATES];

/** States a task was paid in: its cost, else its reservation, is spent (`gwrun_paid` in SQL). */
export const PAID_STATES: readonly TaskState[] = [Completed, Downloaded, Done];

/** States a task ends a run in without its outputs: what `gwrun retry --failed` and reports name. */
export const FAILED_STATES: readonly TaskState[] = [Failed, Rejected, Expired, Skipped];

/** States a task ends a run in without its outputs, a held one included: the run failed. */
export const UNDONE_STATES: readonly TaskState[] = [...FAILED_STATES, Held];

/** States a task ends a run in. */
export const FINAL_STATES: readonly TaskState[] = [Done, ...UNDONE_STATES];

/** Whether `from` may move to `to`. */
export function canMove(from: TaskState, to: TaskState): boolean {
  return TRANSITIONS[from].includes(to);
}
