import { publish } from "../engine/context.js";
import { recordDependants, recordSkipped } from "../engine/dependants.js";
import { TaskState as State, type TaskRow, type TaskState } from "../store/index.js";
import type { FleetRun } from "./fleet-run.js";

/**
 * How a task's work ends in a fleet: failed (its dependants skipped with its reason), or done
 * (its dependants recorded, and queued by the store as they become pending).
 */

export async function failTask(
  run: FleetRun,
  task: TaskRow,
  from: readonly TaskState[],
  reason: string,
  to: "failed" | "rejected" | "expired" | "held" = State.Failed,
  expiredOutput?: number,
): Promise<void> {
  const { store, clock } = run.context;
  const events = await store.failTask(task, from, to, reason, clock.now(), expiredOutput);
  publish(run.context, events);
  if (events.length > 0) await skipDependants(run, task, reason);
}

/** A failed upstream's dependants are recorded skipped, with its reason. */
export async function skipDependants(run: FleetRun, task: TaskRow, reason: string): Promise<void> {
  const { templates } = run.context;
  if (templates.has(task.job_id))
    publish(run.context, await recordSkipped(run.context, templates, task, reason));
}

/** A done task's dependants: recorded pending (the store queues them), or failed when unsendable. */
export async function startDependants(run: FleetRun, task: TaskRow): Promise<void> {
  const templates = run.context.templates.get(task.job_id);
  if (templates === undefined) return;
  const { dependants, events } = await recordDependants(run.context, templates, task);
  publish(run.context, events);
  for (const { task: dependant, problem } of dependants)
    if (problem !== null && dependant.state === State.Pending)
      await failTask(run, dependant, [State.Pending], problem);
}
