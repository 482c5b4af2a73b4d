/**
 * The job state machine, written down once. Every transition the store makes is checked
 * against this table.
 *
 *   pending ──claim──▶ submitting ──receipt──▶ submitted ──poll──▶ processing ──poll──▶ completed
 *                         │                        │                   │                   │
 *                         │ text answer            └──────poll─────────┴──▶ failed        │ downloads
 *                         ▼                                                 expired        ▼
 *                      downloaded ◀──────────────────────────────────────────────────── downloaded ──checks──▶ done
 *                                                                            check failed: failed, or pending (retry)
 *
 * - pending: known, not yet sent. submitting: claimed by a process, request leaving; found
 *   after a crash it means "outcome unknown" and goes back to pending (counted).
 * - submitted / processing: the gateway has a task id; it is polled, never resubmitted.
 * - completed: the gateway finished; outputs are being downloaded.
 * - downloaded: every output is on disk and hashed; post-processing checks it and makes its
 *   thumbnails. done: finished, every check passed (back to downloaded when a later run finds
 *   its files intact but a thumbnail or poster gone, to make them again). A failed check ends the job `failed`, or,
 *   with `checks: { on_fail: retry }` and attempts left, sends it back to pending (a new task).
 * - failed (the gateway or retries gave up), rejected (the gateway refused the request: 400,
 *   401, 422), expired (the task or its links are gone), cancelled (left unsent when a run
 *   stopped for budget or balance), skipped (its upstream failed). `gwrun retry` and a new run
 *   move cancelled ones, and `retry` the failed and expired ones, back to pending. A pending
 *   dependant whose input cannot be sent (a dead link where the family takes no Data URI)
 *   fails unsent.
 */
export const JobState = {
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
  Cancelled: "cancelled",
  Skipped: "skipped",
} as const;
export type JobState = (typeof JobState)[keyof typeof JobState];

const S = JobState;

/** Allowed moves: from → the states it may go to. */
export const TRANSITIONS: Readonly<Record<JobState, readonly JobState[]>> = {
  [S.Pending]: [S.Submitting, S.Cancelled, S.Skipped, S.Failed],
  [S.Submitting]: [S.Submitted, S.Processing, S.Downloaded, S.Pending, S.Failed, S.Rejected],
  [S.Submitted]: [S.Processing, S.Completed, S.Failed, S.Expired],
  [S.Processing]: [S.Processing, S.Completed, S.Failed, S.Expired],
  [S.Completed]: [S.Downloaded, S.Failed, S.Expired],
  [S.Downloaded]: [S.Done, S.Completed, S.Failed, S.Pending],
  [S.Done]: [S.Pending, S.Completed, S.Downloaded],
  [S.Failed]: [S.Pending],
  [S.Rejected]: [S.Pending],
  [S.Expired]: [S.Pending],
  [S.Cancelled]: [S.Pending],
  [S.Skipped]: [S.Pending],
};

/** States in which the gateway holds a task for the job. */
export const RUNNING_STATES: readonly JobState[] = [S.Submitted, S.Processing];

/** States a job ends a run in. */
export const FINAL_STATES: readonly JobState[] = [
  S.Done,
  S.Failed,
  S.Rejected,
  S.Expired,
  S.Cancelled,
  S.Skipped,
];

/** Whether `from` may move to `to`. */
export function canMove(from: JobState, to: JobState): boolean {
  return TRANSITIONS[from].includes(to);
}
