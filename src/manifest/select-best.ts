/**
 * Ranking the takes of one group (the repeats of one request and their retakes) for a job's
 * `select: { best: K }`. A person's decision wins: a take a person rejected is never
 * selected, one a person approved always is and fills one of the K places; the places left
 * go to the highest scored takes no one reviewed, ties to the take recorded first. A take
 * without a score (its own checks failed, or the judge's answer gave none) is not ranked.
 * One rule for the report, the viewer, `export --selected` and `from: { selected: true }`.
 */

export type Decision = "approved" | "rejected";

export interface Candidate {
  /** Names the output (`<task key>:<output index>`). */
  id: string;
  score: number | null;
  review: Decision | null;
}

/** The ids selected of a group, `candidates` in the order recorded; `best`: K, at least 1. */
export function selectBest(candidates: readonly Candidate[], best: number): Set<string> {
  const approved = candidates.filter((each) => each.review === "approved");
  const ranked = candidates
    .map((each, order) => ({ each, order }))
    .filter(({ each }) => each.review === null && each.score !== null)
    // Highest score first; equal scores keep the order recorded.
    .sort((a, b) => (b.each.score ?? 0) - (a.each.score ?? 0) || a.order - b.order)
    .slice(0, Math.max(0, best - approved.length));
  return new Set([...approved, ...ranked.map(({ each }) => each)].map((each) => each.id));
}

/** An output's id in a selection: its task key and output index. */
export function selectionId(key: string, idx: number): string {
  return `${key}:${idx}`;
}

/** One task of a group as recorded, with one of its outputs (none: `idx` null). */
export interface TakeRow {
  key: string;
  state: string;
  repeat_index: number;
  take: number;
  idx: number | null;
  /** The output's checks as recorded (JSON): the job's rule and the judge's score. */
  checks: string | null;
  review: Decision | null;
}

/** What a group's takes decide: whether none is still on its way, and the outputs selected. */
export interface GroupSelection {
  settled: boolean;
  /** Every ranked output's id, and whether it is selected (all false until settled). */
  outputs: Map<string, boolean>;
}

/** Task states a group waits on no longer. */
const SETTLED = new Set(["done", "failed", "rejected", "expired", "skipped"]);

/**
 * The selection of one group from its rows. A group is decided once none of its tasks is
 * still on its way; until then none of it is selected.
 */
export function groupSelection(rows: Iterable<TakeRow>): GroupSelection {
  let best = 0;
  let settled = true;
  const candidates: (Candidate & { order: [number, number, number] })[] = [];
  for (const row of rows) {
    if (!SETTLED.has(row.state)) settled = false;
    if (row.idx === null || row.checks === null) continue;
    const checks = JSON.parse(row.checks) as {
      select?: { best?: unknown };
      judge?: { score?: unknown };
    };
    if (typeof checks.select?.best !== "number") continue;
    best = checks.select.best;
    const score = checks.judge?.score;
    candidates.push({
      id: selectionId(row.key, row.idx),
      score: typeof score === "number" ? score : null,
      review: row.review,
      order: [row.repeat_index, row.take, row.idx],
    });
  }
  candidates.sort(
    (a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2],
  );
  const chosen = settled ? selectBest(candidates, best) : new Set<string>();
  return {
    settled,
    outputs: new Map(candidates.map((each) => [each.id, chosen.has(each.id)])),
  };
}

/**
 * The outputs a decided group selects, by task key (their indexes); undefined while a take of
 * it is still on its way.
 */
export function selectedByTask(rows: Iterable<TakeRow>): Map<string, Set<number>> | undefined {
  const { settled, outputs } = groupSelection(rows);
  if (!settled) return undefined;
  const chosen = new Map<string, Set<number>>();
  for (const [id, selected] of outputs) {
    if (!selected) continue;
    const at = id.lastIndexOf(":");
    const key = id.slice(0, at);
    chosen.set(key, (chosen.get(key) ?? new Set<number>()).add(Number(id.slice(at + 1))));
  }
  return chosen;
}
