import { checkTask } from "../engine/checks.js";
import { recordFailure } from "../engine/dependants.js";
import { downloadOutputs, localFaultMessage } from "../engine/download.js";
import { finishUnchecked } from "../engine/refusals.js";
import {
  locatedOutput,
  type OutputRow,
  type PgStore,
  type TaskRow,
  TaskState,
} from "../store/index.js";
import { startDependants } from "./endings.js";
import { type FleetRun, haltRun } from "./fleet-run.js";

/**
 * A download job: a completed task's outputs fetched to the shared output folder, then
 * checked and thumbnailed on this host while the files are fresh, then done and its
 * dependants started. The store queues it, earliest link expiry first across the fleet.
 */

/** Links older than this are asked for afresh before downloading (they may have moved). */
const FRESH_LINKS_MS = 60_000;

export interface DownloadDeps {
  store: PgStore;
  runOf(runId: number): Promise<FleetRun>;
}

export async function downloadJob(key: string, deps: DownloadDeps): Promise<void> {
  const found = await deps.store.fleet.taskWithOutputs(key);
  if (found === undefined) return;
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
  if (result.complete) return finish(run, { ...task, state: TaskState.Downloaded }, result.outputs);
  if (result.localFault !== undefined) {
    // This host cannot keep files: the run stops; the job is tried again, maybe elsewhere.
    await haltRun(deps.store, run, "failed", localFaultMessage(result));
    throw result.localFault;
  }
  if (result.expired !== undefined) {
    const { reason, idx } = result.expired;
    return recordFailure(run.context, task, [TaskState.Completed], reason, TaskState.Expired, idx);
  }
  throw new Error(`the download of ${task.label} was interrupted; it is tried again`);
}

/** Downloaded → checks and thumbnails → done → dependants. */
async function finish(run: FleetRun, task: TaskRow, outputs?: OutputRow[]): Promise<void> {
  const { postprocess } = run.context;
  if (postprocess === undefined || task.lane === "text") {
    if (await finishUnchecked(run.context, task)) await startDependants(run, task);
    return;
  }
  const checked = await checkTask(task, postprocess, run.context, outputs);
  if (checked.kind === "done") await startDependants(run, task);
  else if (checked.kind === "failed")
    await recordFailure(run.context, task, [TaskState.Downloaded], checked.reason);
}
