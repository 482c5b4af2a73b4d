import { FAMILIES } from "../families/index.js";
import type { TaskRow } from "../store/index.js";

/** Outputs downloaded at most for a task whose family states no count (a passthrough model). */
export const MAX_UNSTATED_OUTPUTS = 16;

const byId = new Map(FAMILIES.map((family) => [family.id, family]));

/**
 * How many outputs a task's request was promised: links beyond it are the gateway's surplus,
 * never downloaded (a result listing 500 links must not cost 500 downloads).
 */
export function promisedOutputs(task: TaskRow): number {
  const family = task.family === null ? undefined : byId.get(task.family);
  if (family === undefined) return MAX_UNSTATED_OUTPUTS;
  try {
    return family.expectedOutputs(JSON.parse(task.request) as Record<string, unknown>).count;
  } catch {
    return MAX_UNSTATED_OUTPUTS;
  }
}
