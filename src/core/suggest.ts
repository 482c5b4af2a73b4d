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

/** A number with its unit, as sizes, resolutions and durations are written: "3k", "720p", "10". */
const MEASURE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

/**
 * When `word` and every candidate are amounts of one unit ("3k" among "2K", "4K"), the
 * candidates either side of it: closeness of meaning, where the nearest string ("1K") would
 * be the wrong fix. Undefined when they are not all amounts of one unit.
 */
export function neighbours(word: string, candidates: readonly string[]): string[] | undefined {
  const measure = (text: string) => {
    const match = MEASURE.exec(text.trim());
    return match === null
      ? undefined
      : { amount: Number(match[1]), unit: (match[2] as string).toLowerCase() };
  };
  const asked = measure(word);
  if (asked === undefined || candidates.length === 0) return undefined;
  const known = candidates.map((text) => ({ text, measure: measure(text) }));
  if (known.some(({ measure }) => measure === undefined || measure.unit !== asked.unit))
    return undefined;
  const amount = (entry: (typeof known)[number]) => entry.measure?.amount ?? 0;
  const below = known.filter((entry) => amount(entry) < asked.amount);
  const above = known.filter((entry) => amount(entry) > asked.amount);
  const nearestBelow = below.reduce<(typeof known)[number] | undefined>(
    (best, entry) => (best === undefined || amount(entry) > amount(best) ? entry : best),
    undefined,
  );
  const nearestAbove = above.reduce<(typeof known)[number] | undefined>(
    (best, entry) => (best === undefined || amount(entry) < amount(best) ? entry : best),
    undefined,
  );
  return [nearestBelow, nearestAbove].flatMap((entry) => (entry === undefined ? [] : [entry.text]));
}

/** What `word` was probably meant to be: the same but for case, the amounts either side, or the closest. */
export function suggestions(word: string, candidates: readonly string[]): string[] {
  const lower = word.toLowerCase();
  const sameButCase = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (sameButCase !== undefined) return [sameButCase];
  const near = neighbours(word, candidates);
  if (near !== undefined && near.length > 0) return near;
  const match = suggest(word, candidates);
  return match === undefined ? [] : [match];
}

/** " (did you mean "x"?)", " (did you mean "2K" or "4K"?)" or "" — for appending to a message. */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  show: (candidate: string) => string = (candidate) => `"${candidate}"`,
): string {
  const found = suggestions(word, candidates);
  return found.length === 0 ? "" : ` (did you mean ${found.map(show).join(" or ")}?)`;
}
