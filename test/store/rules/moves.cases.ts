/**
 * What a task's arrival in a state asks for next: a submit, polls, a download (which also
 * checks what is downloaded), or nothing. One process finds it when it takes a recorded task
 * on (`placementOf`); a fleet's store queues the job as the task moves (the triggers of
 * `gwrun_queue_work` and `gwrun_queue_submits`), and its poll leader reads the tasks the
 * gateway holds.
 */

export type Arrival =
  | "pending"
  | "submitting"
  | "submitted"
  | "processing"
  | "completed"
  | "downloaded"
  | "done"
  | "failed"
  | "rejected";

export interface MoveCase {
  name: string;
  /** The state it leaves; undefined for a task recorded in `to`. */
  from?: Arrival;
  to: Arrival;
  next: "submit" | "poll" | "download" | "check" | "nothing";
  /** The job that made the move goes on with what is next: a fleet queues nothing new. */
  sameJob?: true;
}

export const MOVE_CASES: readonly MoveCase[] = [
  { name: "a recorded task is submitted", to: "pending", next: "submit" },
  { name: "a retried task is submitted again", from: "failed", to: "pending", next: "submit" },
  { name: "a rejected task is regenerated", from: "rejected", to: "pending", next: "submit" },
  { name: "a done task is made again", from: "done", to: "pending", next: "submit" },
  {
    name: "a claimed task is its claimer's",
    from: "pending",
    to: "submitting",
    next: "nothing",
  },
  { name: "a submitted task is polled", from: "submitting", to: "submitted", next: "poll" },
  { name: "a task in progress is polled", from: "submitted", to: "processing", next: "poll" },
  {
    name: "a completed task is downloaded",
    from: "processing",
    to: "completed",
    next: "download",
  },
  {
    name: "a task completed at its first poll is downloaded",
    from: "submitted",
    to: "completed",
    next: "download",
  },
  {
    name: "a text answer, downloaded as it is submitted, is checked",
    from: "submitting",
    to: "downloaded",
    next: "check",
  },
  {
    name: "a downloaded task is checked by the job that downloaded it",
    from: "completed",
    to: "downloaded",
    next: "check",
    sameJob: true,
  },
  {
    name: "a done task whose files are gone is downloaded again",
    from: "done",
    to: "completed",
    next: "download",
  },
  {
    name: "a done task whose thumbnails are gone is checked again",
    from: "done",
    to: "downloaded",
    next: "check",
  },
  { name: "a checked task is done", from: "downloaded", to: "done", next: "nothing" },
  { name: "a failed task waits for a retry", from: "processing", to: "failed", next: "nothing" },
];
