import type { TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { named } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { Receipt } from "../transition-inputs.js";
import { receiptOf } from "../transition-patches.js";
import { type PgDb, row, rows } from "./db.js";
import { move, moveSet } from "./tasks.js";

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

/** The capacity lanes as stored: text is counted with images. */
function lanesOf(task: TaskRow): string[] {
  return task.lane === "video" ? ["video"] : ["image", "text"];
}

/**
 * pending → submitting for `owner`, if the lane has room and the budget allows it: one call of
 * `gwrun_claim` (sql/pg/000010), serialised per run and lane on the server so the counts hold
 * fleet-wide while no lock waits on a worker's round trips.
 */
export async function claimWithin(
  db: PgDb,
  task: TaskRow,
  owner: string,
  limits: ClaimLimits,
  now: number,
): Promise<FleetClaim> {
  const unknown = limits.unknownCost ?? 0;
  const attempts = task.attempts + 1;
  const answer = await row<{ claim: "claimed" | "full" | "budget" | "gone" }>(
    db.pool,
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
  if (claim !== "claimed") return { refused: claim };
  return {
    claimed: { ...task, state: TaskState.Submitting, claimed_by: owner, attempts },
    events: [{ type: "task:submitting", ...named(task) }],
  };
}

export type FleetReceipt = "recorded" | "orphan" | { duplicateOf: string };

/**
 * submitting → submitted | processing, only while `owner` still holds the claim. A receipt
 * for a claim taken over (the worker was presumed dead) is kept in `orphan_tasks`. One
 * statement: the guarded update is the compare-and-set, and what it did not move is kept.
 */
export async function recordClaimedReceipt(
  db: PgDb,
  receipt: Receipt,
  owner: string,
  now: number,
): Promise<{ recorded: FleetReceipt; events: TaskEvent[] }> {
  const { task, taskId } = receipt;
  // What any receipt sets (`receiptOf`); the claim's owner is this statement's own guard.
  const { patch } = receiptOf(receipt, now);
  const { set, values } = moveSet([TaskState.Submitting], receipt.status, patch, 6);
  const answer = await row<{ moved: boolean; duplicate: string | null }>(
    db.pool,
    `WITH duplicate AS (SELECT label FROM jobs WHERE task_id = $4 AND key <> $3 LIMIT 1),
     moved AS (
       UPDATE jobs SET state = $1, updated_at = $2, submitted_by = $5${set}
       WHERE key = $3 AND state = 'submitting' AND claimed_by = $5
         AND NOT EXISTS (SELECT 1 FROM duplicate)
       RETURNING run_id, key),
     logged AS (
       INSERT INTO events (run_id, at, job_key, type, data)
       SELECT run_id, $2, key, 'job:' || $1, NULL FROM moved),
     kept AS (
       INSERT INTO orphan_tasks (task_id, job_key, worker_id, received_at)
       SELECT $4, $3, $5, $2
       WHERE NOT EXISTS (SELECT 1 FROM moved) AND NOT EXISTS (SELECT 1 FROM duplicate)
       ON CONFLICT (task_id) DO NOTHING)
     SELECT EXISTS (SELECT 1 FROM moved) AS moved, (SELECT label FROM duplicate) AS duplicate`,
    [receipt.status, now, task.key, taskId, owner, ...values],
  );
  if (answer?.duplicate != null) return { recorded: { duplicateOf: answer.duplicate }, events: [] };
  if (answer?.moved !== true) return { recorded: "orphan", events: [] };
  const event: TaskEvent = {
    type: "task:submitted",
    ...named(task),
    taskId,
    firstPollInMs: Math.max(0, receipt.nextPollAt - now),
  };
  return { recorded: "recorded", events: [event] };
}

/**
 * A dead worker's claim, resolved by the run's policy: back to pending with one unknown
 * submit counted, or held for `gwrun retry --held`. Only while the dead worker still holds it.
 */
export async function resolveDeadClaim(
  db: PgDb,
  task: TaskRow,
  policy: "resubmit" | "hold",
  reason: string,
  now: number,
): Promise<boolean> {
  return db.transaction(async (sql) => {
    const holder = await row<{ claimed_by: string | null }>(
      sql,
      "SELECT claimed_by FROM jobs WHERE key = $1 AND state = 'submitting' FOR UPDATE",
      [task.key],
    );
    if (holder === undefined || holder.claimed_by !== task.claimed_by) return false;
    if (policy === "hold")
      return move(sql, task.key, [TaskState.Submitting], TaskState.Held, { reason }, now);
    const patch = { claimed_by: null, unknown_submits: task.unknown_submits + 1, reason };
    return move(sql, task.key, [TaskState.Submitting], TaskState.Pending, patch, now);
  });
}

/**
 * Which tasks the gateway holds for these runs, by key: the poll leader's round, several times
 * a second, so only keys (the leader reads the rows of the ones it does not track yet).
 */
export function heldByGateway(
  db: PgDb,
  runIds: readonly number[],
): Promise<{ key: string; run_id: number }[]> {
  return rows<{ key: string; run_id: number }>(
    db.pool,
    `SELECT key, run_id FROM jobs
     WHERE state IN ('submitted', 'processing') AND run_id = ANY($1::int[])`,
    [[...runIds]],
  );
}

/** Task ids received for claims already taken over, newest first. */
export function orphansOf(
  db: PgDb,
  limit: number,
): Promise<{ task_id: string; job_key: string; worker_id: string; received_at: number }[]> {
  return rows(
    db.pool,
    "SELECT task_id, job_key, worker_id, received_at FROM orphan_tasks ORDER BY received_at DESC LIMIT $1",
    [limit],
  );
}
