import { afterDownload, downloadOutputs, finishDownloaded } from "../engine/index.js";
import {
  locatedOutput,
  type OutputRow,
  type PgStore,
  type TaskRow,
  TaskState,
  type TaskWithOutputs,
} from "../store/index.js";
import { startDependants } from "./endings.js";
import { type FleetRun, haltRun } from "./fleet-run.js";

/**
 * A download job: completed tasks' outputs (one task's, or up to ten of a poll round's:
 * sql/pg/000023) fetched to the shared output folder, then checked and thumbnailed on this
 * host while the files are fresh, then done and their dependants started. The store queues
 * it, earliest link expiry first across the fleet. A job's tasks are read in one statement
 * and go on together, each within one of the worker's download slots.
 */

/** Links older than this are asked for afresh before downloading (they may have moved). */
const FRESH_LINKS_MS = 60_000;

export interface DownloadDeps {
  store: PgStore;
  runOf(runId: number): Promise<FleetRun>;
  /** Runs `work` in one of the worker's download slots (`--downloads`), waiting for one. */
  inSlot<T>(work: () => Promise<T>): Promise<T>;
}

export async function downloadJob(keys: readonly string[], deps: DownloadDeps): Promise<void> {
  const found = await deps.store.fleet.tasksWithOutputs(keys);
  const ended = await Promise.allSettled(
    keys.map(async (key) => {
      const one = found.get(key);
      if (one !== undefined) await deps.inSlot(() => downloadTask(one, deps));
    }),
  );
  // The job is tried again for what failed; a task done meanwhile is passed over then.
  const failed = ended.find((end) => end.status === "rejected");
  if (failed !== undefined) throw failed.reason;
}

async function downloadTask(found: TaskWithOutputs, deps: DownloadDeps): Promise<void> {
  const { task } = found;
  const run = await deps.runOf(task.run_id);
  const { paths } = run;
  const outputs =
    paths === undefined ? found.outputs : found.outputs.map((row) => locatedOutput(paths, row));
  if (task.state === TaskState.Downloaded) return finish(run, task, outputs);
  if (task.state !== TaskState.Completed) return;
  const { clock } = run.context;
  const refresh = task.completed_at === null || clock.now() - task.completed_at > FRESH_LINKS_MS;
  const result = await downloadOutputs(task, run.context, refresh, {
    outputs,
    labelShared: found.labelShared,
  });
  const after = await afterDownload(result, task, run.context);
  switch (after.next) {
    case "finish":
      return finish(run, after.task, after.outputs);
    case "halt":
      // This host cannot keep files: the run stops; the job is tried again, maybe elsewhere.
      await haltRun(deps.store, run, "failed", after.message);
      throw after.fault;
    case "again":
      throw new Error(`the download of ${task.label} was interrupted; it is tried again`);
    case "none":
      return;
    default: {
      const never: never = after;
      throw new Error(`unknown step ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Downloaded → checks and thumbnails → done → dependants. A task requeued by a failed check is
 * pending again: the store queues its submit job.
 */
async function finish(run: FleetRun, task: TaskRow, outputs?: OutputRow[]): Promise<void> {
  const finished = await finishDownloaded(task, run.context, outputs);
  if (finished.kind === "done") await startDependants(run, task);
}
