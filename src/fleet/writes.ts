import { batched, publish, type RunContext, type TaskWrites, taskWrites } from "../engine/index.js";
import type { PgStore, Receipt } from "../store/index.js";
import { claimLimits, claimTasks, type FleetRun } from "./fleet-run.js";

/**
 * A fleet run's claims and receipts: a claim holds the lane's cap and the budget for the whole
 * fleet (a refusal says why, for the submit job); a receipt is recorded only while the claim
 * is still this worker's, else kept as an orphan (reported lost to the engine's code). Every
 * write is a round trip to PostgreSQL: what a worker's submits and downloads ask for while
 * one is under way goes together in the next (`batched`, one at a time).
 */
export function fleetWrites(
  store: PgStore,
  context: Omit<RunContext, "writes" | "takeOnDependant">,
  run: Pick<FleetRun, "claimedAhead" | "owner" | "budgets">,
): TaskWrites {
  const { claimedAhead, owner } = run;
  const { clock } = context;
  const receipt = batched(
    async (receipts: Receipt[]) => {
      const recordedAt = clock.now();
      const { recorded, events } = await store.fleet.recordClaimedReceipts(
        receipts,
        owner,
        recordedAt,
      );
      publish(context, events);
      return recorded.map((one) =>
        one === "orphan" ? "lost" : one === "recorded" ? { recordedAt } : one,
      );
    },
    { oneAtATime: true },
  );
  return {
    ...taskWrites(context, { oneAtATime: true }),
    // A claim holds caps fleet-wide in a round trip of its own: made before the pace's turn.
    claimFirst: true,
    claim: async (task) => {
      // Claimed already, with the other tasks of its submit job: sent by this one call.
      const ahead = claimedAhead.get(task.key);
      if (ahead !== undefined) {
        claimedAhead.delete(task.key);
        return { claimed: ahead };
      }
      const limits = claimLimits(context, task, run.budgets);
      const [claim = { refused: "gone" } as const] = await claimTasks(
        store,
        [task],
        owner,
        limits,
        clock.now(),
      );
      if ("refused" in claim) return { refused: claim.refused };
      publish(context, claim.events);
      return { claimed: claim.claimed };
    },
    receipt,
  };
}
