import { selectedByTask } from "../manifest/index.js";
import type { TaskRow } from "../store/index.js";
import type { PlanStore } from "./diff-types.js";

/**
 * The outputs of `upstream` its group's `select:` picks (their indexes), read as the run that
 * recorded it sees its takes; undefined while a take of the group is still on its way (or
 * without a store: nothing is decided).
 */
export async function selectedOf(
  context: { store: PlanStore | undefined },
  upstream: TaskRow,
): Promise<ReadonlySet<number> | undefined> {
  if (context.store === undefined) return undefined;
  const chosen = selectedByTask(await context.store.takesOf(upstream.run_id, upstream));
  return chosen === undefined ? undefined : (chosen.get(upstream.key) ?? new Set());
}
