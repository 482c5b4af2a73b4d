import type { PaceRowStatus } from "../fleet-port.js";
import { first, read, rows } from "../program.js";

/**
 * What `gwrun status` shows of a fleet beyond its workers and queue: the pace rows, who
 * submitted a run's tasks, the orphaned task ids. Reads only; times by the database's clock.
 */

export const fleetStatus = {
  /** Every pace row, by account. */
  paceRows: read(function* () {
    return yield* rows<PaceRowStatus>(
      `SELECT account, rate, ceiling, announced,
         GREATEST(0, COALESCE(EXTRACT(EPOCH FROM paused_until - gwrun_now()) * 1000, 0))::float8
           AS paused_ms
       FROM gateway_pace ORDER BY account`,
    );
  }),
  /**
   * How many of a run's tasks each worker submitted for it (the receipt recorded under its
   * claim): the run that paid for the task is this one. A task an earlier run paid for, kept
   * by this one, is not this run's submit. Read from the task, not the event log, which
   * `gwrun prune` thins.
   */
  submitsByWorker: read(function* (runId: number) {
    const found = yield* rows<{ worker: string; n: number }>(
      `SELECT j.submitted_by AS worker, count(*) AS n
       FROM run_jobs r JOIN jobs j ON j.key = r.key
       WHERE r.run_id = $1 AND j.submitted_by IS NOT NULL AND j.paid_run = $1
       GROUP BY j.submitted_by ORDER BY j.submitted_by`,
      [runId],
    );
    return Object.fromEntries(found.map((submits) => [submits.worker, submits.n]));
  }),
  /** How many task ids came back to a worker whose claim had been taken over. */
  orphanCount: read(function* () {
    return (yield* first<{ n: number }>("SELECT count(*) AS n FROM orphan_tasks"))?.n ?? 0;
  }),
};
