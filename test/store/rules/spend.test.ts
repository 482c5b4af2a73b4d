import { afterEach, describe, expect, it } from "vitest";
import { roundMoney } from "../../../src/core/money.js";
import { Admission } from "../../../src/engine/admission.js";
import {
  IN_FLIGHT_STATES,
  PAID_STATES,
  type PgStore,
  type TaskRow,
  type TaskState,
} from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { taskRow } from "../../helpers/task-row.js";
import { SPEND_CASES, type SpendCase } from "./spend.cases.js";

/** One table of what counts against `max_cost`, run through one process's rule and the fleet's. */

afterEach(closeFleetStores);

/** What one process's admission counts, told each task as a run (or its resume) tells it. */
function inOneProcess(spend: SpendCase): { spent: number; goes: boolean } {
  const admission = new Admission({
    maxInFlight: 100,
    maxInFlightVideo: 100,
    maxCost: spend.maxCost,
    unknownCost: spend.unknownCost,
  });
  spend.tasks.forEach((task, i) => {
    const row = taskRow({ key: `k${i}`, estimated_cost: task.estimate });
    const state = task.state as TaskState;
    if (IN_FLIGHT_STATES.includes(state)) admission.started(row);
    if (PAID_STATES.includes(state)) admission.finished(row, task.cost ?? null);
    if (task.unknownSubmits !== undefined) admission.unknownSubmits(row, task.unknownSubmits);
  });
  admission.enqueue(taskRow({ key: "next", estimated_cost: spend.next.estimate }));
  return { spent: roundMoney(admission.committed), goes: admission.take("image") !== "budget" };
}

/** What a fleet counts: the tasks' rows as the store keeps them, and a claim of one more. */
async function inAFleet(spend: SpendCase): Promise<{ spent: number; goes: boolean }> {
  const { stores, rows, runId } = await fleet(1, spend.tasks.length + 1);
  const store = stores[0] as PgStore;
  for (const [i, task] of spend.tasks.entries())
    await store.pool.query(
      `UPDATE jobs SET state = $2, estimated_cost = $3, cost = $4, unknown_submits = $5
        WHERE key = $1`,
      [rows[i]?.key, task.state, task.estimate, task.cost ?? null, task.unknownSubmits ?? 0],
    );
  const next = rows[spend.tasks.length] as TaskRow;
  await store.pool.query("UPDATE jobs SET estimated_cost = $2 WHERE key = $1", [
    next.key,
    spend.next.estimate,
  ]);
  const spent = Number(
    (
      await store.pool.query("SELECT gwrun_run_spent($1, $2) AS spent", [
        runId,
        spend.unknownCost ?? null,
      ])
    ).rows[0].spent,
  );
  const [claim] = await store.fleet.claimTasksWithin(
    [{ ...next, estimated_cost: spend.next.estimate }],
    "worker",
    { cap: 100, maxCost: spend.maxCost, unknownCost: spend.unknownCost },
    1,
  );
  return { spent, goes: claim !== undefined && "claimed" in claim };
}

describe("what counts against max_cost", () => {
  it.each(SPEND_CASES)("in one process: $name", (spend) => {
    expect(inOneProcess(spend)).toEqual({ spent: spend.spent, goes: spend.next.goes });
  });

  it.each(SPEND_CASES)("in a fleet: $name", async (spend) => {
    expect(await inAFleet(spend)).toEqual({ spent: spend.spent, goes: spend.next.goes });
  });
});
