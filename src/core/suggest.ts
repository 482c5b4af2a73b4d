import { closest, distance } from "fastest-levenshtein";

/** The closest candidate to `word`, or undefined when none is near enough to be a typo. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const lower = word.toLowerCase();
  const sameButCase = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (sameButCase !== undefined) return sameButCase;
  const best = closest(
    lower,
    candidates.map((candidate) => candidate.toLowerCase()),
  );
  const index = candidates.findIndex((candidate) => candidate.toLowerCase() === best);
  const limit = Math.max(2, Math.floor(word.length / 3));
  return distance(lower, best) <= limit ? candidates[index] : undefined;
}

/** " (did you mean "x"?)" or "" — for appending to a message. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const match = suggest(word, candidates);
  return match === undefined ? "" : ` (did you mean "${match}"?)`;
}
