import { roundMoney } from "../../core/money.js";
import { periodAround } from "../../core/periods.js";
import type { ClaimLimits, FleetClaim, FleetReceipt, FleetStore } from "../fleet-port.js";
import { checkedMove } from "../move.js";
import { first, lockName, move, read, rows, transaction, write } from "../program.js";
import { periodSpendOf } from "../queries/budgets.js";
import { TASK_COLUMNS } from "../queries/tasks.js";
import type { OutputRow, TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { submittingEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { Receipt } from "../transition-inputs.js";
import { receiptOf } from "../transition-patches.js";
import { logged, moveSet, movesOnly } from "./moves.js";

/**
 * Claims and receipts across a fleet: a claim holds the run's in-flight cap and budget for
 * every worker at once, and a receipt is recorded only while its claim is still the
 * claimer's; one that comes back after a takeover is kept as an orphan, never dropped.
 */

/** The capacity lanes as stored: text is counted with images. */
function lanesOf(task: TaskRow): string[] {
  return task.lane === "video" ? ["video"] : ["image", "text"];
}

/** What giving back a claim never sent sets: nothing was sent, so no outcome is unknown. */
const UNSENT = { claimed_by: null, reason: null };

/** The columns a receipt sets besides its state (`receiptOf`), as `gwrun_record_receipts` does. */
const RECEIPT_COLUMNS = [
  "task_id",
  "submitted_at",
  "next_poll_at",
  "claimed_by",
  "unknown_submits",
  "paid_run",
];

/** The outcome a claim of each task got, as `gwrun_claim_tasks` names it. */
type ClaimOutcome = "claimed" | "full" | "budget" | "gone";

/**
 * pending → submitting for `owner`, for each of `tasks` (one run, one capacity lane) in
 * order, while the lane has room and the budget allows: one call of `gwrun_claim_tasks`
 * (sql/pg/000026), serialised per run and lane on the server, and per run within a budget, so
 * the counts hold fleet-wide while no lock waits on a worker's round trips. Each task moves
 * only from pending.
 */
const claimTasksWithin = write(function* (
  tasks: readonly TaskRow[],
  owner: string,
  limits: ClaimLimits,
  now: number,
) {
  const [lead] = tasks;
  if (lead === undefined) return [] as FleetClaim[];
  const unknown = limits.unknownCost ?? 0;
  const answers = yield* rows<{ task_key: string; outcome: ClaimOutcome }>(
    `SELECT task_key, outcome FROM gwrun_claim_tasks($1::text[], $2, $3::text[], $4, $5, $6,
       $7::float8[], $8, $9::int[], $10)`,
    [
      tasks.map((task) => task.key),
      lead.run_id,
      lanesOf(lead),
      limits.cap,
      limits.maxCost ?? null,
      unknown,
      tasks.map((task) => task.estimated_cost ?? unknown),
      owner,
      tasks.map((task) => task.attempts + 1),
      now,
    ],
  );
  // One answer a task, in the order given (a task named twice is claimed once).
  return tasks.map((task, i): FleetClaim => {
    const answer = answers[i];
    const claim = answer?.task_key === task.key ? answer.outcome : "gone";
    if (claim !== "claimed") return { refused: claim };
    const claimed = { ...task, state: TaskState.Submitting, claimed_by: owner };
    return {
      claimed: { ...claimed, attempts: task.attempts + 1 },
      events: [submittingEvent(task)],
    };
  });
});

/**
 * submitting → submitted | processing for each receipt, only while `owner` still holds its
 * claim. A receipt for a claim taken over (the worker was presumed dead) is kept in
 * `orphan_tasks`; one whose task id another task holds (or an earlier receipt of the same
 * call) is refused. One statement: the guarded update is each task's compare-and-set, and
 * what it did not move is kept.
 */
const recordClaimedReceipts = write(function* (
  receipts: readonly Receipt[],
  owner: string,
  now: number,
) {
  const taken = receipts.map((receipt) => receiptOf(receipt, now));
  const [lead] = taken;
  if (lead === undefined) return { recorded: [] as FleetReceipt[], events: [] as TaskEvent[] };
  // Every receipt sets the same columns (`receiptOf`): those `gwrun_record_receipts` sets.
  const { columns } = checkedMove(lead.from, lead.to, lead.patch);
  movesOnly(columns, RECEIPT_COLUMNS, "gwrun_record_receipts");
  const given = receipts.map((receipt, i) => {
    const { to, patch } = taken[i] as (typeof taken)[number];
    checkedMove([TaskState.Submitting], to, patch);
    return { key: receipt.task.key, state: to, ...patch };
  });
  const answers = yield* rows<{ key: string; moved: boolean; duplicate: string | null }>(
    `SELECT task_key AS key, moved, duplicate_of AS duplicate
       FROM gwrun_record_receipts($1, $2, $3::jsonb, $4::text[], $5::text[])`,
    // The keys and task ids again as arrays: the plan reads the tasks by index for them,
    // where it cannot tell how many rows the JSON holds.
    [
      owner,
      now,
      JSON.stringify(given),
      given.map((one) => one.key),
      given.map((one) => one.task_id),
    ],
  );
  const byKey = new Map(answers.map((answer) => [answer.key, answer]));
  const recorded = receipts.map((receipt): FleetReceipt => {
    const answer = byKey.get(receipt.task.key);
    if (answer?.duplicate != null) return { duplicateOf: answer.duplicate };
    return answer?.moved === true ? "recorded" : "orphan";
  });
  const events = taken.filter((_, i) => recorded[i] === "recorded").map((one) => one.event);
  return { recorded, events };
});

/**
 * `claimTasksWithin` under budgets across runs: a lock per budget holds every claim under it
 * to one at a time, fleet-wide, while what this period spent and reserves (by the database's
 * clock) is read and the tasks that fit are claimed; what they reserve then counts (claimed,
 * they are being sent) for the next claim. The tasks past the room are refused "period".
 */
const claimTasksUnderBudgets = transaction(function* (
  tasks: readonly TaskRow[],
  owner: string,
  limits: ClaimLimits,
  now: number,
) {
  const periods = limits.periods ?? [];
  for (const scope of [...new Set(periods.map((budget) => budget.scope))].sort())
    yield* lockName(`budget:${scope}`);
  const clock = yield* first<{ now: number | string }>(
    "SELECT EXTRACT(EPOCH FROM gwrun_now()) * 1000 AS now",
  );
  const at = Number(clock?.now ?? now);
  let room = Number.POSITIVE_INFINITY;
  for (const budget of periods) {
    const period = periodAround(budget.per, budget.timezone, at);
    const spent = yield* periodSpendOf({ ...period, gateway: budget.scope });
    room = Math.min(room, spent >= budget.amount ? 0 : roundMoney(budget.amount - spent));
  }
  const unknown = limits.unknownCost ?? 0;
  let fit = 0;
  for (let reserved = 0; fit < tasks.length; fit++) {
    const own = (tasks[fit] as TaskRow).estimated_cost ?? unknown;
    if (room <= 0 || roundMoney(reserved + own) > room) break;
    reserved += own;
  }
  const claimed = yield* claimTasksWithin.program(tasks.slice(0, fit), owner, limits, now);
  return [...claimed, ...tasks.slice(fit).map((): FleetClaim => ({ refused: "period" }))];
});

export const fleetClaims = {
  claimTasksWithin,
  claimTasksUnderBudgets,
  /**
   * submitting → pending for claims `owner` made and never sent (a submit job that ends
   * before their turn), only while each is still its own: one taken over is left alone.
   */
  releaseUnsentClaims: write(function* (keys: readonly string[], owner: string, now: number) {
    if (keys.length === 0) return 0;
    const { set, values } = moveSet([TaskState.Submitting], TaskState.Pending, UNSENT, 5);
    const released = yield* rows<{ key: string }>(
      `WITH moved AS (
         UPDATE jobs SET state = $1, updated_at = $2${set}
         WHERE key = ANY($3::text[]) AND state = 'submitting' AND claimed_by = $4
         RETURNING run_id, key),
       ${logged("NULL")}
       SELECT key FROM moved`,
      [TaskState.Pending, now, [...keys], owner, ...values],
    );
    return released.length;
  }),
  /** One task's claim (`claimTasksWithin` of one). */
  claimWithin: write(function* (task: TaskRow, owner: string, limits: ClaimLimits, now: number) {
    const [claim] = yield* claimTasksWithin.program([task], owner, limits, now);
    return claim ?? ({ refused: "gone" } as FleetClaim);
  }),
  recordClaimedReceipts,
  /** One receipt (`recordClaimedReceipts` of one). */
  recordClaimedReceipt: write(function* (receipt: Receipt, owner: string, now: number) {
    const { recorded, events } = yield* recordClaimedReceipts.program([receipt], owner, now);
    return { recorded: recorded[0] ?? ("orphan" as FleetReceipt), events };
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
   * Tasks and their outputs in one read (a download job's first look), by key, and whether
   * another task goes by each one's label (only then may a name of its files be another's:
   * `freeOutputPath`). A key no task has is left out.
   */
  tasksWithOutputs: read(function* (keys: readonly string[]) {
    const found = yield* rows<TaskRow & { task_outputs: OutputRow[]; label_shared: boolean }>(
      `SELECT ${TASK_COLUMNS},
         COALESCE((SELECT json_agg(o ORDER BY o.idx) FROM outputs o WHERE o.job_key = jobs.key), '[]')
           AS task_outputs,
         EXISTS (SELECT 1 FROM jobs other WHERE other.job_id = jobs.job_id
           AND other.label = jobs.label AND other.key <> jobs.key) AS label_shared
       FROM jobs WHERE key = ANY($1::text[])`,
      [[...keys]],
    );
    return new Map(
      found.map(({ task_outputs: outputs, label_shared: labelShared, ...task }) => [
        task.key,
        { task: task as TaskRow, outputs, labelShared },
      ]),
    );
  }),
};
