import type { CostGrouping, CostReport, Store } from "../store/index.js";
import { findRun } from "./store.js";

/** What `gwrun cost` reports: what was paid, by group, with the estimate beside it. */
export interface CostOutcome extends CostReport {
  /** The run reported on; null for the store's totals over every run. */
  run: { id: number; name: string } | null;
  by: CostGrouping;
}

/**
 * What a run paid (`ref`: a run id), or, without one, every run the store holds, grouped
 * `by` job, model, family or UTC day of completion.
 */
export async function costOf(
  store: Store,
  location: string,
  ref: string | undefined,
  by: CostGrouping,
): Promise<CostOutcome> {
  if (ref === undefined) return { run: null, by, ...(await store.costReport({ all: true }, by)) };
  const run = await findRun(store, location, ref);
  return {
    run: { id: run.id, name: run.name },
    by,
    ...(await store.costReport({ run: run.id }, by)),
  };
}
