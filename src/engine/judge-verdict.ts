import type { JudgePass } from "../manifest/index.js";
import type { JudgeVerdict } from "../store/index.js";

/**
 * Reading a judge's answer. `starts_with`: the answer's first word is the pass word (any
 * case), or the fail word (default "no"); `score_at_least`: the first number it states (as
 * "8", "8/10", "Score: 8.5") is compared with the threshold. Anything else — an empty answer,
 * another first word, no number, a score beyond the scale — is undecided: never a pass.
 */

/** Characters of reason kept: a sentence or two. */
const REASON_MAX = 300;

export interface ReadVerdict {
  verdict: JudgeVerdict;
  /** What the judge gave as its reason: the rest of its answer, or why it could not be read. */
  reason: string | null;
}

export function readVerdict(answer: string, pass: JudgePass): ReadVerdict {
  const text = answer.trim();
  if (text === "") return { verdict: "undecided", reason: "the judge gave no answer" };
  if ("starts_with" in pass) {
    const first = /^[\s"'*_`]*([\p{L}\p{N}]+)/u.exec(text);
    const word = first?.[1]?.toLowerCase();
    const rest = reasonAfter(text, first?.[0].length ?? 0);
    if (word === pass.starts_with.toLowerCase()) return { verdict: "pass", reason: rest };
    if (word === (pass.fails_with ?? "no").toLowerCase()) return { verdict: "fail", reason: rest };
    return { verdict: "undecided", reason: `cannot read "${cut(text, 80)}" as a verdict` };
  }
  const top = pass.out_of ?? 10;
  const number = /(-?\d+(?:\.\d+)?)(?:\s*\/\s*\d+(?:\.\d+)?)?/.exec(text);
  const score = number === null ? Number.NaN : Number(number[1]);
  if (!Number.isFinite(score) || score < 0 || score > top)
    return {
      verdict: "undecided",
      reason: `cannot read a score from 0 to ${top} in "${cut(text, 80)}"`,
    };
  const rest = reasonAfter(text, (number?.index ?? 0) + (number?.[0].length ?? 0));
  const said = `score ${score}/${top}${rest === null ? "" : `: ${rest}`}`;
  return { verdict: score >= pass.score_at_least ? "pass" : "fail", reason: said };
}

/** The answer after its verdict, without the punctuation that joins them. */
function reasonAfter(text: string, from: number): string | null {
  const rest = text
    .slice(from)
    .replace(/^[\s.,;:!—–\-*_"'`)]+/u, "")
    .trim();
  return rest === "" ? null : cut(rest.replace(/\s+/g, " "), REASON_MAX);
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
