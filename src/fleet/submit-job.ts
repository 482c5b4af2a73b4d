import { afterSend, budgetStopMessage, sendTask, waitsForUpstream } from "../engine/index.js";
import { type PgStore, type TaskRow, TaskState } from "../store/index.js";
import { type FleetRun, haltRun } from "./fleet-run.js";

/**
 * A submit job: pending tasks (one, or up to ten of a large run: sql/pg/000014), each sent once,
 * one after another. Each is claimed (the claim holds the cap and the budget for every worker;
 * a full lane is waited out), takes its turn at the shared pace, and what the gateway answered
 * is recorded. Polls are the poll leader's; outputs are download jobs the store queues when
 * the task completes.
 */

/** How often a submit waiting for room on its lane looks again. */
const ROOM_POLL_MS = 200;

export interface SubmitDeps {
  store: PgStore;
  /** The run a task belongs to, opened; throws when this worker cannot work it (the job is
   * then tried again later, by the process that can). */
  runOf(runId: number): Promise<FleetRun>;
  /** Throws when this worker may not claim (stopping, or its heartbeat is stale). */
  mayClaim(): void;
  /** Waits `ms` (cut short when the worker stops). */
  wait(ms: number): Promise<void>;
}

export async function submitJob(keys: readonly string[], deps: SubmitDeps): Promise<void> {
  // Read together as the job starts: a task moved since is found out by its claim, which
  // takes only a pending task. One already sent or done is passed over, so a job tried again
  // redoes nothing.
  const tasks = await deps.store.tasksByKey(keys);
  for (const key of keys) await submitTask(tasks.get(key), deps);
}

async function submitTask(read: TaskRow | undefined, deps: SubmitDeps): Promise<void> {
  const { store } = deps;
  // A dependant's request is bound when its upstream is done, maybe since the job started.
  const fresh = read === undefined || read.upstream_key === null;
  const task = fresh ? read : await store.task(read.key);
  if (task === undefined || task.state !== TaskState.Pending || task.placeholder === 1) return;
  const { key } = task;
  const run = await deps.runOf(task.run_id);
  const upstream = task.upstream_key === null ? undefined : await store.task(task.upstream_key);
  if (waitsForUpstream(task, upstream)) return;
  for (;;) {
    deps.mayClaim();
    if (run.halt !== undefined) return;
    const sent = await sendTask(task, run.context, () => run.halt === undefined);
    const refused = run.refusals.get(key);
    run.refusals.delete(key);
    if (sent.kind === "not-sent") {
      // The lane is full fleet-wide: the claim says so before any turn is taken.
      if (refused === "full") {
        await deps.wait(ROOM_POLL_MS);
        continue;
      }
      if (refused === "budget") {
        const { maxCost } = run.context.settings.limits;
        const { spent } = await store.summaryOf({ run: run.id });
        await haltRun(store, run, "budget", budgetStopMessage(maxCost, spent));
      }
      return;
    }
    // The rest is the store's: it queues what follows (polls are the leader's, a text answer's
    // finishing a download job).
    const after = await afterSend(sent, run.context);
    if (after.next === "fault") throw after.error;
    if (after.next === "halt") await haltRun(store, run, after.end, after.message);
    return;
  }
}
