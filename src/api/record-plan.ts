import { type CheckedManifest, checkedJobs } from "../families/index.js";
import { TASK_PAGE, taskPages } from "../plan/index.js";
import type { Store } from "../store/index.js";

/**
 * A run's initial tasks recorded as `gwrun plan --json` prints them, a page at a time: each
 * page made from the manifest again, recorded in a transaction of its own and let go. A run
 * stopped between pages records the rest when resumed (or run again), a task recorded
 * already staying as it is, so nothing is sent twice. `chosen`: the jobs an `--only` names.
 */
export async function recordInitialTasks(
  store: Pick<Store, "recordTasks">,
  runId: number,
  checked: CheckedManifest,
  chosen: ReadonlySet<string> | undefined,
  now: number,
  pageSize: number = TASK_PAGE,
): Promise<void> {
  for await (const page of taskPages(checkedJobs(checked, chosen), pageSize))
    await store.recordTasks(runId, page, now);
}
