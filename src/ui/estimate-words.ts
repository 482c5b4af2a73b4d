import { moneyText, roundMoney } from "../core/money.js";
import { plural } from "../core/words.js";
import type { Estimated } from "../engine/index.js";

/**
 * What was paid beside its estimate, in the words the run's summary, `gwrun status` and
 * `gwrun cost` all use: `estimated 5.00 (10 tasks at unknown_cost; paid 4.40 less)`. Tasks of
 * unknown price are counted at `limits.unknown_cost`, as `plan` counts them; without one they
 * are named, and no difference is claimed. Empty when nothing paid was priced beforehand.
 */
export function estimateWords(paid: number, estimated: Estimated | null): string {
  if (estimated === null) return "";
  const { estimate, atUnknownCost, unpriced } = estimated;
  // Nothing was priced: no estimate to stand beside what was paid.
  if (estimate === 0 && atUnknownCost === 0) return "";
  const notes: string[] = [];
  if (atUnknownCost > 0) notes.push(`${plural(atUnknownCost, "task")} at unknown_cost`);
  if (unpriced > 0) notes.push(`${plural(unpriced, "task")} of unknown price not counted`);
  const difference = roundMoney(paid - estimate);
  if (unpriced === 0 && difference !== 0)
    notes.push(`paid ${moneyText(Math.abs(difference))} ${difference > 0 ? "more" : "less"}`);
  return `estimated ${moneyText(estimate)}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}
