import { publish, type RunContext, type TaskWrites } from "../engine/index.js";
import type { PgStore } from "../store/index.js";
import { claimLimits, type FleetRun } from "./fleet-run.js";

/**
 * A fleet run's claims and receipts: a claim holds the lane's cap and the budget for the whole
 * fleet (a refusal is noted for the submit job to read); a receipt is recorded only while the
 * claim is still this worker's, else kept as an orphan (reported lost to the engine's code).
 */
export function fleetWrites(
  store: PgStore,
  context: RunContext,
  run: Pick<FleetRun, "refusals">,
  owner: string,
): TaskWrites {
  const { clock } = context;
  return {
    ...context.writes,
    // A claim holds caps fleet-wide in a round trip of its own: made before the pace's turn.
    claimFirst: true,
    claim: async (task) => {
      const claim = await store.fleet.claimWithin(
        task,
        owner,
        claimLimits(context, task),
        clock.now(),
      );
      if ("refused" in claim) {
        run.refusals.set(task.key, claim.refused);
        return undefined;
      }
      publish(context, claim.events);
      return claim.claimed;
    },
    receipt: async (receipt) => {
      const { recorded, events } = await store.fleet.recordClaimedReceipt(
        receipt,
        owner,
        clock.now(),
      );
      publish(context, events);
      return recorded === "orphan" ? "lost" : recorded;
    },
  };
}
