import { type OutputRow, type TaskRow, TaskState } from "../store/index.js";
import type { RunContext } from "./context.js";
import type { PostProcess } from "./post-process.js";

/**
 * A downloaded task's checks: its outputs go through post-processing, the verdicts are kept,
 * and a task whose checks all passed is done. A failed check fails the task, or with
 * `on_fail: retry` and attempts left sends it back to pending for a new task.
 */
export type Checked =
  | { kind: "done" }
  | { kind: "requeued"; task: TaskRow }
  | { kind: "failed"; reason: string }
  /** Another process moved it on meanwhile. */
  | { kind: "lost" };

/** `outputs`: the task's outputs when the caller has just recorded them; read otherwise. */
export async function checkTask(
  task: TaskRow,
  postprocess: PostProcess,
  context: RunContext,
  outputs?: OutputRow[],
): Promise<Checked> {
  const { store, clock, settings } = context;
  // As recorded: its sidecars carry the times the store holds (a row read fresh has them).
  const fresh = task.submitted_at !== null && task.completed_at !== null;
  const recorded = fresh ? task : { ...task, ...(await store.task(task.key)), state: task.state };
  const { verdicts, onFail } = await postprocess.process(
    recorded,
    outputs ?? (await store.outputsOf(task.key)),
  );
  if (await context.writes.checks(task, verdicts)) return { kind: "done" };
  const problems = verdicts.flatMap((verdict) => verdict.problems);
  if (problems.length === 0) return { kind: "lost" };
  const reason = `check failed: ${problems.join("; ")}`;
  const attempts = (await store.task(task.key))?.attempts ?? task.attempts;
  if (onFail === "report" || attempts >= settings.retry.attempts) return { kind: "failed", reason };
  if (!(await store.requeue(task, [TaskState.Downloaded], reason, clock.now())))
    return { kind: "lost" };
  return {
    kind: "requeued",
    task: { ...task, state: TaskState.Pending, task_id: null, attempts, reason },
  };
}
