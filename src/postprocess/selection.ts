import type { ReportRow, ReviewDecision, RunRow } from "../store/index.js";
import { type Candidate, selectBest } from "./select-best.js";

/**
 * Which outputs of a report's scope are selected (`select:`), worked out from the record:
 * each output's checks carry the job's rule and the judge's score, and a person's review
 * overrides the ranking (`selectBest`). A group — the takes of one request: one job, one
 * combination of variables, one upstream output — is decided once none of its tasks is
 * still on its way; until then none of it is selected. Not stored: it follows from scores,
 * order and reviews, so a review changes it at once and it can never disagree with them.
 */

/** An output's id in a selection: its task key and output index. */
export function selectionId(key: string, idx: number): string {
  return `${key}:${idx}`;
}

/** Task states a group waits on no longer. */
const SETTLED = new Set(["done", "failed", "rejected", "expired", "skipped"]);

interface Group {
  best: number;
  settled: boolean;
  candidates: (Candidate & { order: [number, number, number] })[];
}

/**
 * Whether a run's manifest may select at all: without `select:` no second reading is made.
 * A runner key is never read from an included file, so the manifest's own text says it.
 */
export function maySelect(run: Pick<RunRow, "manifest_text">): boolean {
  return /\bselect["']?\s*:/.test(run.manifest_text);
}

/** Each output of a job with `select:` in `rows`, and whether it is selected. */
export async function selectionsOf(rows: AsyncIterable<ReportRow>): Promise<Map<string, boolean>> {
  const groups = new Map<string, Group>();
  for await (const { task, output } of rows) {
    const id = `${task.job_id}\u0000${task.vars ?? ""}\u0000${task.upstream_key ?? ""}`;
    const group = groups.get(id) ?? { best: 0, settled: true, candidates: [] };
    groups.set(id, group);
    if (!SETTLED.has(task.state)) group.settled = false;
    if (output === null || output.path === null || output.checks === null) continue;
    const checks = JSON.parse(output.checks) as {
      select?: { best?: unknown };
      judge?: { score?: unknown };
    };
    if (typeof checks.select?.best !== "number") continue;
    group.best = checks.select.best;
    const score = checks.judge?.score;
    group.candidates.push({
      id: selectionId(task.key, output.idx),
      score: typeof score === "number" ? score : null,
      review: output.review as ReviewDecision | null,
      order: [task.repeat_index, task.take, output.idx],
    });
  }
  const selections = new Map<string, boolean>();
  for (const group of groups.values()) {
    if (group.candidates.length === 0) continue;
    group.candidates.sort((a, b) => compareOrder(a.order, b.order));
    const chosen = group.settled ? selectBest(group.candidates, group.best) : new Set();
    for (const each of group.candidates) selections.set(each.id, chosen.has(each.id));
  }
  return selections;
}

function compareOrder(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The record with `selected` when its job selects (`selections` from `selectionsOf`). */
export function withSelection<T extends { key: string; output: number; selected?: boolean }>(
  record: T,
  selections: ReadonlyMap<string, boolean> | undefined,
): T {
  const selected = selections?.get(selectionId(record.key, record.output - 1));
  return selected === undefined ? record : { ...record, selected };
}
