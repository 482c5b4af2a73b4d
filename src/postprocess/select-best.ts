import type { ReviewDecision } from "../store/index.js";

/**
 * Ranking the takes of one group (the repeats of one request and their retakes) for a job's
 * `select: { best: K }`. A person's decision wins: a take a person rejected is never
 * selected, one a person approved always is and fills one of the K places; the places left
 * go to the highest scored takes no one reviewed, ties to the take recorded first. A take
 * without a score (its own checks failed, or the judge's answer gave none) is not ranked.
 */

export interface Candidate {
  /** Names the output (`<task key>:<output index>`). */
  id: string;
  score: number | null;
  review: ReviewDecision | null;
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
