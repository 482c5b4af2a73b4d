import type { WorkerIdentity, WorkerRow } from "../fleet-port.js";
import { changes, first, read, rows, transaction, write } from "../program.js";
import { TASK_COLUMNS } from "../queries/tasks.js";
import type { TaskRow } from "../rows.js";
import { LEADER_PREFIX } from "./fleet-leader.js";
import { QUEUES } from "./queues.js";

/**
 * The fleet's workers: each says it is alive (a heartbeat in the database's clock, so hosts'
 * clocks may disagree); a worker silent past the lease is dead, and its claims and
 * graphile-worker jobs are handed back.
 */

export const fleetWorkers = {
  /** A worker that starts under the id of a dead one (the pid came round again) replaces it. */
  registerWorker: write(function* (worker: WorkerIdentity) {
    yield* changes(
      `INSERT INTO workers (id, name, host, pid, lease_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET name = $2, lease_ms = $5, pool_ids = '{}',
         started_at = gwrun_now(), heartbeat_at = gwrun_now(), stopped_at = NULL,
         dead_at = NULL`,
      [worker.id, worker.name, worker.host, worker.pid, worker.leaseMs],
    );
  }),
  /** Remembers a graphile-worker pool of this worker, so its jobs can be freed if it dies. */
  addWorkerPool: write(function* (workerId: string, poolId: string) {
    yield* changes("UPDATE workers SET pool_ids = array_append(pool_ids, $2) WHERE id = $1", [
      workerId,
      poolId,
    ]);
  }),
  /** The heartbeat; false when a reaper found this worker dead already (it must stop claiming). */
  heartbeat: write(function* (workerId: string) {
    const beat = yield* first<{ id: string }>(
      "UPDATE workers SET heartbeat_at = gwrun_now() WHERE id = $1 AND dead_at IS NULL RETURNING id",
      [workerId],
    );
    return beat !== undefined;
  }),
  workerStopped: write(function* (workerId: string) {
    yield* changes("UPDATE workers SET stopped_at = gwrun_now() WHERE id = $1", [workerId]);
  }),
  /**
   * Marks dead every worker silent for `leaseMs` (and those of `gone`: ids this host knows are
   * no longer running), frees the graphile-worker jobs they held, and returns the tasks they
   * were submitting: their outcome is unknown, for the caller to resolve by the run's policy.
   */
  reapWorkers: transaction(function* (leaseMs: number, gone: readonly string[] = []) {
    const dead = yield* rows<{ id: string; pool_ids: string[] }>(
      `UPDATE workers SET dead_at = gwrun_now()
       WHERE dead_at IS NULL AND stopped_at IS NULL
         AND (heartbeat_at < gwrun_now() - $1 * interval '1 millisecond' OR id = ANY($2::text[]))
       RETURNING id, pool_ids`,
      [leaseMs, [...gone]],
    );
    const pools = dead.flatMap((worker) => worker.pool_ids);
    if (pools.length > 0)
      yield* rows(
        `SELECT ${QUEUES.submit}.force_unlock_workers($1::text[]),
                ${QUEUES.download}.force_unlock_workers($1::text[])`,
        [pools],
      );
    // A host that died without closing its sockets would keep the poll leader's lock until
    // the server's keepalive gave up: end its leader session now, so a standby takes over.
    // Of this database only: another store on the server may have a worker of that name.
    if (dead.length > 0)
      yield* rows(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = ANY($1::text[]) AND datname = current_database()`,
        [dead.map((worker) => `${LEADER_PREFIX}${worker.id}`.slice(0, 63))],
      );
    const claims = yield* rows<TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM jobs JOIN workers w ON w.id = jobs.claimed_by
       WHERE jobs.state = 'submitting' AND w.dead_at IS NOT NULL`,
    );
    return { dead: dead.map((worker) => worker.id), claims };
  }),
  /** Every worker not known to have left or died, and the recently gone, newest first. */
  workersOf: read(function* () {
    return yield* rows<WorkerRow>(
      `SELECT id, name, host, pid, pool_ids, lease_ms,
         (EXTRACT(EPOCH FROM gwrun_now() - heartbeat_at) * 1000)::BIGINT AS heartbeat_age_ms,
         (EXTRACT(EPOCH FROM started_at) * 1000)::BIGINT AS started_at,
         (EXTRACT(EPOCH FROM stopped_at) * 1000)::BIGINT AS stopped_at,
         (EXTRACT(EPOCH FROM dead_at) * 1000)::BIGINT AS dead_at
       FROM workers
       WHERE (stopped_at IS NULL AND dead_at IS NULL)
          OR COALESCE(stopped_at, dead_at) > gwrun_now() - interval '1 hour'
       ORDER BY started_at DESC`,
    );
  }),
};
