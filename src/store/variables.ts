import type { NewTask, TaskRow } from "./rows.js";

/** What tells a task apart from its siblings, as records show it. */
export interface TaskVariables {
  /** Its matrix variables; {} without a matrix. */
  vars: Record<string, unknown>;
  /** Which repeat, from 0. */
  repeat: number;
  /** Which take, from 1 (a regeneration after review is the next). */
  take: number;
  /** The key of the upstream task whose output fed it (`from:`); null otherwise. */
  upstream: string | null;
}

/** The variables of a recorded task, from its columns. */
export function variablesOf(
  task: Pick<TaskRow, "vars" | "repeat_index" | "take" | "upstream_key">,
): TaskVariables {
  return {
    vars: task.vars === null ? {} : (JSON.parse(task.vars) as Record<string, unknown>),
    repeat: task.repeat_index,
    take: task.take,
    upstream: task.upstream_key,
  };
}

/** A task's matrix variables as the `vars` column holds them: JSON, or null when it has none. */
export function varsColumn(task: Pick<NewTask, "vars">): string | null {
  return task.vars === undefined || Object.keys(task.vars).length === 0
    ? null
    : JSON.stringify(task.vars);
}
