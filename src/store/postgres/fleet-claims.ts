import type { Receipt } from "../port.js";
import type { TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { named } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import { type PgDb, row, rows } from "./db.js";
import { move } from "./tasks.js";

/**
 * Claims and receipts across a fleet: a claim holds the run's in-flight cap and budget for
 * every worker at once, and a receipt is recorded only while its claim is still the
 * claimer's; one that comes back after a takeover is kept as an orphan, never dropped.
 */

const IN_FLIGHT = [TaskState.Submitting, TaskState.Submitted, TaskState.Processing];
const PAID = [TaskState.Completed, TaskState.Downloaded, TaskState.Done];

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
 * `gwrun_claim` (sql/pg/000009), serialised per run and lane on the server so the counts hold
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
    "SELECT gwrun_claim($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS claim",
    [
      task.key,
      task.run_id,
      lanesOf(task),
      IN_FLIGHT,
      PAID,
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
 * for a claim taken over (the worker was presumed dead) is kept in `orphan_tasks`.
 */
export function recordClaimedReceipt(
  db: PgDb,
  receipt: Receipt,
  owner: string,
  now: number,
): Promise<{ recorded: FleetReceipt; events: TaskEvent[] }> {
  return db.transaction(async (sql) => {
    const { task, taskId } = receipt;
    const holder = await row<{ state: string; claimed_by: string | null }>(
      sql,
      "SELECT state, claimed_by FROM jobs WHERE key = $1 FOR UPDATE",
      [task.key],
    );
    const held = await row<{ label: string }>(
      sql,
      "SELECT label FROM jobs WHERE task_id = $1 AND key <> $2 LIMIT 1",
      [taskId, task.key],
    );
    if (held !== undefined) return { recorded: { duplicateOf: held.label }, events: [] };
    if (holder?.state !== TaskState.Submitting || holder.claimed_by !== owner) {
      await sql.query(
        `INSERT INTO orphan_tasks (task_id, job_key, worker_id, received_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT (task_id) DO NOTHING`,
        [taskId, task.key, owner, now],
      );
      return { recorded: "orphan", events: [] };
    }
    const patch = {
      task_id: taskId,
      submitted_at: now,
      next_poll_at: receipt.nextPollAt,
      claimed_by: null,
      unknown_submits: task.unknown_submits + receipt.unknownSubmits,
    };
    await move(sql, task.key, [TaskState.Submitting], receipt.status, patch, now);
    await sql.query("UPDATE jobs SET submitted_by = $2 WHERE key = $1", [task.key, owner]);
    const event: TaskEvent = {
      type: "task:submitted",
      ...named(task),
      taskId,
      firstPollInMs: Math.max(0, receipt.nextPollAt - now),
    };
    return { recorded: "recorded", events: [event] };
  });
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
