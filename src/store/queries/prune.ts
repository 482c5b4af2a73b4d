import { changes, transaction } from "../program.js";
import { FINAL_STATES } from "../states.js";

/**
 * The event log keeps a line for every move of every task: about 6 per task, a quarter of the
 * state database. Once a run has finished, what `status`, `report`, the timeline and the
 * provenance sidecars show of a finished task is in its own row and its outputs' rows; its
 * moves are history no one reads. Run notices (rate limits, stops) stay, and so do the moves
 * of a running run (a fleet follows them) and of a task not yet finished.
 */
export const pruneOperations = {
  /** Removes the logged moves of finished tasks in finished runs: how many lines went. */
  pruneTaskEvents: transaction(function* () {
    return yield* changes(
      (d) => `DELETE FROM events WHERE job_key IS NOT NULL
         AND run_id IN (SELECT id FROM runs WHERE finished_at IS NOT NULL)
         AND job_key IN (SELECT key FROM jobs WHERE ${d.anyOf("state")})`,
      [FINAL_STATES],
    );
  }),
};
