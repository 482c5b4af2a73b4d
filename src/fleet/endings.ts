import {
  type RunContext,
  startDependants as startRecordedDependants,
  takeOnTask,
} from "../engine/index.js";
import { type TaskRow, TaskState } from "../store/index.js";
import type { FleetRun } from "./fleet-run.js";

/**
 * A done task's dependants in a fleet, recorded and taken on by the run core's rule
 * (`startDependants`).
 */
export async function startDependants(run: FleetRun, task: TaskRow): Promise<void> {
  await startRecordedDependants(task, run.context);
}

/**
 * How a fleet's worker takes a recorded dependant on. The store queues a pending dependant's
 * submit job and the poll leader finds a running one, so only one done before needs this
 * worker: taken on as any recorded task (its files checked, delivered into the run's folder,
 * fetched or made again), and its own dependants follow.
 */
export async function takeOnDependant(context: RunContext, dependant: TaskRow): Promise<void> {
  if (dependant.state !== TaskState.Done) return;
  const taken = await takeOnTask(dependant, context);
  if (taken.to === "done") await startRecordedDependants(taken.task, context);
}
