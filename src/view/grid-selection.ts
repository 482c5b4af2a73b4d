import { maySelect, selectionsOf } from "../postprocess/index.js";
import type { RunRow, Store } from "../store/index.js";

/**
 * The grid's best takes (`select:`): each output of a job that selects gets `selected`, as
 * results.jsonl has it — worked out from the run's scores and reviews, so a decision made in
 * the viewer moves the selection at once. A run without `select:` is not read again.
 */
export async function withGridSelections<T extends { id: string }>(
  store: Store,
  run: RunRow,
  items: T[],
): Promise<(T & { selected?: boolean })[]> {
  if (!maySelect(run)) return items;
  const selections = await selectionsOf(store.reportRows({ run: run.id }));
  return items.map((item) => {
    // A grid id is `<task key>/<index>`; a selection's `<task key>:<index>`.
    const selected = selections.get(item.id.replace(/\/(\d+)$/, ":$1"));
    return selected === undefined ? item : { ...item, selected };
  });
}
