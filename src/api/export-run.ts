import { commandIo } from "../core/io.js";
import { type Exported, exportApproved, maySelect, selectionsOf } from "../postprocess/index.js";
import type { RunRow, Store } from "../store/index.js";
import { bringApprovedHere } from "./publish.js";

/**
 * A run's approved (or, with `selected`, selected) outputs with their sidecars into `dir`, and
 * review.csv beside them: `gwrun export` and the `export` tool of `gwrun mcp`. Outputs made
 * on a fleet's other host are read back from object storage first.
 */
export async function exportRunOutputs(
  store: Store,
  run: RunRow,
  options: { dir: string; project: string; selected: boolean; force: boolean },
): Promise<Exported> {
  await bringApprovedHere(store, run, commandIo().env);
  return exportApproved(store, run, {
    ...options,
    // review.csv says which takes were selected, whichever outputs are delivered.
    ...(options.selected || maySelect(run)
      ? { selections: await selectionsOf(store.reportRows({ run: run.id })) }
      : {}),
  });
}
