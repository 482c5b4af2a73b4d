import { type Decision, groupSelection, selectionId, type TakeRow } from "../manifest/index.js";
import type { ReportRow, RunRow } from "../store/index.js";

/**
 * Which outputs of a report's scope are selected (`select:`), worked out from the record:
 * each output's checks carry the job's rule and the judge's score, and a person's review
 * overrides the ranking (`groupSelection`). A group — the takes of one request: one job, one
 * combination of variables, one upstream output — is decided once none of its tasks is
 * still on its way; until then none of it is selected. Not stored: it follows from scores,
 * order and reviews, so a review changes it at once and it can never disagree with them.
 */

export { selectionId };

/**
 * Whether a run's manifest may select at all: without `select:` no second reading is made.
 * A runner key is never read from an included file, so the manifest's own text says it.
 */
export function maySelect(run: Pick<RunRow, "manifest_text">): boolean {
  return /\bselect["']?\s*:/.test(run.manifest_text);
}

/** Each output of a job with `select:` in `rows`, and whether it is selected. */
export async function selectionsOf(rows: AsyncIterable<ReportRow>): Promise<Map<string, boolean>> {
  const groups = new Map<string, TakeRow[]>();
  for await (const { task, output } of rows) {
    const id = `${task.job_id}\u0000${task.vars ?? ""}\u0000${task.upstream_key ?? ""}`;
    const group = groups.get(id) ?? [];
    groups.set(id, group);
    const recorded = output !== null && output.path !== null;
    group.push({
      key: task.key,
      state: task.state,
      repeat_index: task.repeat_index,
      take: task.take,
      idx: recorded ? output.idx : null,
      checks: recorded ? output.checks : null,
      review: recorded ? (output.review as Decision | null) : null,
    });
  }
  const selections = new Map<string, boolean>();
  for (const group of groups.values())
    for (const [id, selected] of groupSelection(group).outputs) selections.set(id, selected);
  return selections;
}

/** The record with `selected` when its job selects (`selections` from `selectionsOf`). */
export function withSelection<T extends { key: string; output: number; selected?: boolean }>(
  record: T,
  selections: ReadonlyMap<string, boolean> | undefined,
): T {
  const selected = selections?.get(selectionId(record.key, record.output - 1));
  return selected === undefined ? record : { ...record, selected };
}
