import type { FleetRunRow, LoggedMove } from "../fleet-port.js";
import {
  type ArgsOf,
  changes,
  first,
  perTask,
  read,
  rows,
  transaction,
  write,
} from "../program.js";
import { statesText } from "../queries/runs.js";
import { pollRound } from "../transitions/poll-round.js";
import { QUEUES } from "./queues.js";

/**
 * Runs as a fleet works them: the manifest every worker runs, the halt every worker obeys,
 * the work queued for a run (graphile-worker jobs), its event log for whoever follows it, and
 * its ending, recorded once by whichever process sees it settle.
 */

export const fleetRuns = {
  setResolvedManifest: write(function* (runId: number, text: string) {
    yield* changes("UPDATE runs SET resolved_manifest = $2 WHERE id = $1", [runId, text]);
  }),
  /** The run is worked by the process that started it alone: no jobs are queued for it. */
  workAlone: write(function* (runId: number) {
    yield* changes("UPDATE runs SET worked_alone = true WHERE id = $1", [runId]);
  }),
  fleetRun: read(function* (runId: number) {
    return yield* first<FleetRunRow>("SELECT * FROM runs WHERE id = $1", [runId]);
  }),
  /** Runs the fleet works that are still going, oldest first. */
  activeRuns: read(function* () {
    return yield* rows<FleetRunRow>(
      "SELECT * FROM runs WHERE status = 'running' AND NOT worked_alone ORDER BY id",
    );
  }),
  /** Stops the run's submits fleet-wide; false when halted already (the first reason stays). */
  haltRun: write(function* (runId: number, halt: string, message: string) {
    const halted = yield* first<{ id: number }>(
      "UPDATE runs SET halt = $2, stop_reason = $3 WHERE id = $1 AND halt IS NULL RETURNING id",
      [runId, halt, message],
    );
    return halted !== undefined;
  }),
  /** Lets a halted run submit again (`gwrun resume`). */
  clearHalt: write(function* (runId: number) {
    yield* changes(
      `UPDATE runs SET halt = NULL, stop_reason = NULL, status = 'running', exit_code = NULL,
         finished_at = NULL, queued = false WHERE id = $1`,
      [runId],
    );
  }),
  /**
   * Whether the fleet still has work for a run: tasks to submit (none once halted), in flight,
   * or with outputs to fetch or check. False means the run has settled. Every worker asks each
   * second: the first such task answers, where a count would read all of a large run's tasks.
   */
  hasWorkLeft: read(function* (runId: number, halted: boolean) {
    const states = halted
      ? ["submitting", "submitted", "processing", "completed", "downloaded"]
      : ["pending", "submitting", "submitted", "processing", "completed", "downloaded"];
    // While the run is busy its own tasks in flight answer at once (by index); only near its
    // end is its whole scope (which may hold tasks of earlier runs) read.
    const flying = yield* first<{ key: string }>(
      "SELECT key FROM jobs WHERE run_id = $1 AND gwrun_in_flight(state) LIMIT 1",
      [runId],
    );
    if (flying !== undefined) return true;
    // A download job still queued or under way: the task it finishes records its dependants
    // after it is done, so until the job ends the run may have tasks it has yet to record.
    const downloading = yield* first<{ id: string }>(
      `SELECT id FROM ${QUEUES.download}._private_jobs
       WHERE flags @> jsonb_build_object($1::text, true)
         AND (locked_at IS NOT NULL OR attempts < max_attempts) LIMIT 1`,
      [`run:${runId}`],
    );
    if (downloading !== undefined) return true;
    const left = yield* first<{ key: string }>(
      `SELECT j.key FROM jobs j JOIN run_jobs r ON r.key = j.key
       WHERE r.run_id = $1 AND j.placeholder = 0 AND j.state = ANY($2::text[]) LIMIT 1`,
      [runId, states],
    );
    return left !== undefined;
  }),
  /**
   * Records the run's ending once: false when another process recorded it first, or when the
   * run is still being recorded (not queued yet).
   */
  settleRun: write(function* (
    runId: number,
    end: {
      status: string;
      exitCode: number;
      now: number;
      states?: Readonly<Record<string, number>>;
    },
  ) {
    const settled = yield* first<{ id: number }>(
      `UPDATE runs SET status = $2, exit_code = $3, finished_at = $4, end_states = $5
       WHERE id = $1 AND status = 'running' AND queued RETURNING id`,
      [runId, end.status, end.exitCode, end.now, statesText(end.states)],
    );
    return settled !== undefined;
  }),
  /**
   * Queues the run's work anew (a run just recorded, `gwrun resume`): submit jobs for the
   * pending tasks (sql/pg/000014), a download job per task whose outputs wait. Only tasks
   * without their job: re-adding a queued job would lock it against the worker about to
   * finish it, so this is safe to repeat.
   */
  queueRun: transaction(function* (runId: number) {
    yield* rows(
      `SELECT gwrun_queue_submit_jobs($1, ARRAY(
         SELECT j.key FROM jobs j JOIN run_jobs r ON r.key = j.key
         WHERE r.run_id = $1 AND j.state = 'pending' AND j.placeholder = 0
           AND j.key NOT IN (SELECT key FROM gwrun_queued_submits() AS q(key) WHERE key IS NOT NULL)
         ORDER BY j.place))`,
      [runId],
    );
    yield* rows(
      `SELECT ${QUEUES.download}.add_jobs(ARRAY(
         SELECT ROW('gwrun_download', json_build_object('key', j.key), NULL, NULL, NULL,
                    'download:' || j.key, gwrun_download_priority(j.key),
                    gwrun_run_flags(j.run_id))::${QUEUES.download}.job_spec
         FROM jobs j JOIN run_jobs r ON r.key = j.key
         WHERE r.run_id = $1 AND j.state IN ('completed', 'downloaded') AND j.placeholder = 0
           AND j.key NOT IN (SELECT key FROM gwrun_queued_downloads() AS q(key) WHERE key IS NOT NULL)))`,
      [runId],
    );
    yield* changes("UPDATE runs SET queued = true WHERE id = $1", [runId]);
  }),
  /** The run's logged task moves after event `afterId`, oldest first. */
  movesSince: read(function* (runId: number, afterId: number, limit = 1000) {
    return yield* rows<LoggedMove>(
      `SELECT e.id, e.type, e.job_key AS key, e.data AS reason, j.job_id, j.label, j.task_id, j.cost,
         j.progress, (SELECT count(*) FROM outputs o WHERE o.job_key = j.key) AS outputs
       FROM events e JOIN jobs j ON j.key = e.job_key
       WHERE e.run_id = $1 AND e.id > $2 AND e.type LIKE 'job:%'
       ORDER BY e.id LIMIT $3`,
      [runId, afterId, limit],
    );
  }),
  /** Submits of the run's tasks whose outcome was unknown (they may have made a task). */
  unknownSubmitsOf: read(function* (runId: number) {
    const found = yield* first<{ n: number }>(
      `SELECT COALESCE(SUM(j.unknown_submits), 0) AS n FROM jobs j JOIN run_jobs r ON r.key = j.key
       WHERE r.run_id = $1`,
      [runId],
    );
    return found?.n ?? 0;
  }),
  /** This store's identity, written into the output folders its runs share. */
  storeId: read(function* () {
    const found = yield* first<{ id: string }>("SELECT id FROM store_identity LIMIT 1");
    if (found === undefined) throw new Error("the store has no identity; run gwrun store migrate");
    return found.id;
  }),
  /** The newest logged event: a follower starts after it. */
  lastEventId: read(function* () {
    const found = yield* first<{ id: number | null }>("SELECT max(id) AS id FROM events");
    return found?.id ?? 0;
  }),
};

/**
 * The poll round of a fleet: the one of both stores (`../transitions/poll-round.ts`), and the
 * download jobs of the tasks it completed in one call (sql/pg/000011); the row trigger leaves
 * this transaction's completions to it.
 */
export const fleetPollRound = perTask(
  transaction(function* (...args: ArgsOf<"recordPollRound">) {
    const { events, lost, downloadable } = yield* pollRound(...args);
    if (downloadable.length > 0)
      yield* rows(
        "SELECT set_config('gwrun.downloads_queued', 'yes', true), gwrun_queue_downloads($1::text[])",
        [downloadable],
      );
    return { events, lost };
  }),
);
