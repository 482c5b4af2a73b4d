import { hostname } from "node:os";
import { processAlive } from "../core/process.js";
import type { PgStore } from "../store/index.js";

/**
 * The reaper, run by every worker: workers silent past their lease (or, on this host, whose
 * process is gone) are dead; their jobs go back to the queue, and each task they were
 * submitting is resolved by its run's unknown-outcome policy: sent again (counted as an
 * unknown submit), or held for `gwrun retry --held` by those who prefer a stuck task to a
 * possible double charge.
 */
export interface ReapDeps {
  /** This worker's id: never reaped by itself. */
  self: string;
  leaseMs: number;
  now(): number;
  policyOf(runId: number): Promise<"resubmit" | "hold" | undefined>;
  log(line: string): void;
}

export async function reap(
  store: PgStore,
  deps: ReapDeps,
  gone: readonly string[] = [],
): Promise<void> {
  const host = hostname();
  const vanished = (await store.fleet.workersOf())
    .filter((worker) => worker.host === host && worker.id !== deps.self)
    .filter((worker) => worker.stopped_at === null && worker.dead_at === null)
    .filter((worker) => !processAlive(worker.pid))
    .map((worker) => worker.id);
  const { dead, claims } = await store.fleet.reapWorkers(deps.leaseMs, [...gone, ...vanished]);
  for (const id of dead)
    if (id !== deps.self) deps.log(`worker ${id} is gone; its claims and jobs are handed back`);
  for (const task of claims) {
    const policy = (await deps.policyOf(task.run_id)) ?? "resubmit";
    const reason =
      policy === "hold"
        ? `worker ${task.claimed_by} died while submitting; the gateway may have made the task, so it is held (gwrun retry --held sends it again)`
        : `worker ${task.claimed_by} died while submitting; the gateway may have made the task; sent again`;
    await store.fleet.resolveDeadClaim(task, policy, reason, deps.now());
  }
}
