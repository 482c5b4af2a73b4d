import { publish } from "../engine/context.js";
import { recordDependants, recordFailure } from "../engine/dependants.js";
import { takeOnTask } from "../engine/take-on.js";
import { TaskState as State, type TaskRow } from "../store/index.js";
import type { FleetRun } from "./fleet-run.js";

/**
 * A done task's dependants in a fleet: recorded (the store queues them as they become
 * pending), or failed when they cannot be sent. How a task fails is the engine's
 * `recordFailure`, on the run's context. A dependant done before is taken on as the engine
 * takes on any recorded task (its files checked, delivered into the run's folder, fetched or
 * made again; the store queues what that moves), and its own dependants follow.
 */
export async function startDependants(run: FleetRun, task: TaskRow): Promise<void> {
  const templates = run.context.templates.get(task.job_id);
  if (templates === undefined) return;
  const { dependants, events } = await recordDependants(run.context, templates, task);
  publish(run.context, events);
  for (const { task: dependant, problem, fresh } of dependants) {
    if (problem !== null && dependant.state === State.Pending)
      await recordFailure(run.context, dependant, [State.Pending], problem);
    else if (!fresh && dependant.state === State.Done) {
      const taken = await takeOnTask(dependant, run.context);
      if (taken.to === "done") await startDependants(run, taken.task);
    }
  }
}
