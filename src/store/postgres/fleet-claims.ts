import type { FleetStore } from "../fleet-port.js";
import { first, move, read, rows, transaction, write } from "../program.js";
import { TASK_COLUMNS } from "../queries/tasks.js";
import type { OutputRow, TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { submittingEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { Receipt } from "../transition-inputs.js";
import { receiptOf } from "../transition-patches.js";
import { logged, moveSet } from "./moves.js";

/**
 * Claims and receipts across a fleet: a claim holds the run's in-flight cap and budget for
 * every worker at once, and a receipt is recorded only while its claim is still the
 * claimer's; one that comes back after a takeover is kept as an orphan, never dropped.
 */

export interface ClaimLimits {
  /** Tasks in flight at once on the task's capacity lane (text shares the image lane). */
  cap: number;
  /** The run's budget, or undefined for none. */
  maxCost: number | undefined;
  /** Reserved for a task without an estimate. */
  unknownCost: number | undefined;
}

export type FleetClaim =
  | { claimed: TaskRow; events: TaskEvent[] }
  | { refused: "full" | "budget" | "gone" };

export type FleetReceipt = "recorded" | "orphan" | { duplicateOf: string };

/** The capacity lanes as stored: text is counted with images. */
function lanesOf(task: TaskRow): string[] {
  return task.lane === "video" ? ["video"] : ["image", "text"];
}

export const fleetClaims = {
  /**
   * pending → submitting for `owner`, if the lane has room and the budget allows it: one call
   * of `gwrun_claim` (sql/pg/000010), serialised per run and lane on the server so the counts
   * hold fleet-wide while no lock waits on a worker's round trips.
   */
  claimWithin: write(function* (task: TaskRow, owner: string, limits: ClaimLimits, now: number) {
    const unknown = limits.unknownCost ?? 0;
    const attempts = task.attempts + 1;
    const answer = yield* first<{ claim: "claimed" | "full" | "budget" | "gone" }>(
      "SELECT gwrun_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) AS claim",
      [
        task.key,
        task.run_id,
        lanesOf(task),
        limits.cap,
        limits.maxCost ?? null,
        unknown,
        task.estimated_cost ?? unknown,
        owner,
        attempts,
        now,
      ],
    );
    const claim = answer?.claim ?? "gone";
    if (claim !== "claimed") return { refused: claim } as FleetClaim;
    return {
      claimed: { ...task, state: TaskState.Submitting, claimed_by: owner, attempts },
      events: [submittingEvent(task)],
    } as FleetClaim;
  }),
  /**
   * submitting → submitted | processing, only while `owner` still holds the claim. A receipt
   * for a claim taken over (the worker was presumed dead) is kept in `orphan_tasks`. One
   * statement: the guarded update is the compare-and-set, and what it did not move is kept.
   */
  recordClaimedReceipt: write(function* (receipt: Receipt, owner: string, now: number) {
    const { task, taskId } = receipt;
    // What any receipt sets (`receiptOf`); the claim's owner is this statement's own guard.
    const { patch, event } = receiptOf(receipt, now);
    const { set, values } = moveSet([TaskState.Submitting], receipt.status, patch, 6);
    const answer = yield* first<{ moved: boolean; duplicate: string | null }>(
      `WITH duplicate AS (SELECT label FROM jobs WHERE task_id = $4 AND key <> $3 LIMIT 1),
       moved AS (
         UPDATE jobs SET state = $1, updated_at = $2, submitted_by = $5${set}
         WHERE key = $3 AND state = 'submitting' AND claimed_by = $5
           AND NOT EXISTS (SELECT 1 FROM duplicate)
         RETURNING run_id, key),
       ${logged("NULL")},
       kept AS (
         INSERT INTO orphan_tasks (task_id, job_key, worker_id, received_at)
         SELECT $4, $3, $5, $2
         WHERE NOT EXISTS (SELECT 1 FROM moved) AND NOT EXISTS (SELECT 1 FROM duplicate)
         ON CONFLICT (task_id) DO NOTHING)
       SELECT EXISTS (SELECT 1 FROM moved) AS moved, (SELECT label FROM duplicate) AS duplicate`,
      [receipt.status, now, task.key, taskId, owner, ...values],
    );
    const recorded: FleetReceipt =
      answer?.duplicate != null
        ? { duplicateOf: answer.duplicate }
        : answer?.moved === true
          ? "recorded"
          : "orphan";
    return { recorded, events: recorded === "recorded" ? [event] : ([] as TaskEvent[]) };
  }),
  /**
   * A dead worker's claim, resolved by the run's policy: back to pending with one unknown
   * submit counted, or held for `gwrun retry --held`. Only while the dead worker still holds it.
   */
  resolveDeadClaim: transaction(function* (
    ...[task, policy, reason, now]: Parameters<FleetStore["resolveDeadClaim"]>
  ) {
    const holder = yield* first<{ claimed_by: string | null }>(
      "SELECT claimed_by FROM jobs WHERE key = $1 AND state = 'submitting' FOR UPDATE",
      [task.key],
    );
    if (holder === undefined || holder.claimed_by !== task.claimed_by) return false;
    const { Submitting, Held, Pending } = TaskState;
    if (policy === "hold")
      return yield* move(task.key, { from: [Submitting], to: Held, patch: { reason } }, now);
    const patch = { claimed_by: null, unknown_submits: task.unknown_submits + 1, reason };
    return yield* move(task.key, { from: [Submitting], to: Pending, patch }, now);
  }),
  /**
   * Which tasks the gateway holds for these runs, by key: the poll leader's round, several
   * times a second, so only keys (the leader reads the rows of the ones it does not track yet).
   */
  heldByGateway: read(function* (runIds: readonly number[]) {
    return yield* rows<{ key: string; run_id: number }>(
      `SELECT key, run_id FROM jobs
       WHERE state IN ('submitted', 'processing') AND run_id = ANY($1::int[])`,
      [[...runIds]],
    );
  }),
  /** Task ids received for claims already taken over, newest first. */
  orphansOf: read(function* (limit: number) {
    return yield* rows<{
      task_id: string;
      job_key: string;
      worker_id: string;
      received_at: number;
    }>(
      "SELECT task_id, job_key, worker_id, received_at FROM orphan_tasks ORDER BY received_at DESC LIMIT $1",
      [limit],
    );
  }),
  /**
   * A task and its outputs in one read (a download job's first look), and whether another
   * task goes by its label (only then may a name of its files be another's: `freeOutputPath`).
   */
  taskWithOutputs: read(function* (key: string) {
    const found = yield* first<TaskRow & { task_outputs: OutputRow[]; label_shared: boolean }>(
      `SELECT ${TASK_COLUMNS},
         COALESCE((SELECT json_agg(o ORDER BY o.idx) FROM outputs o WHERE o.job_key = jobs.key), '[]')
           AS task_outputs,
         EXISTS (SELECT 1 FROM jobs other WHERE other.job_id = jobs.job_id
           AND other.label = jobs.label AND other.key <> jobs.key) AS label_shared
       FROM jobs WHERE key = $1`,
      [key],
    );
    if (found === undefined) return undefined;
    const { task_outputs: outputs, label_shared: labelShared, ...task } = found;
    return { task: task as TaskRow, outputs, labelShared };
  }),
};
