import type { JudgePass } from "../manifest/index.js";
import type { JudgeVerdict } from "../store/index.js";

/**
 * Reading a judge's answer, only in the forms its instruction asks for. `starts_with`: the
 * answer's first word is the pass word (any case), or the fail word (default "no"); a word
 * joined to another ("Yes-no", "yes/no") is neither. `score_at_least`: a score the answer
 * begins with ("8", "8/10", "8 out of 10"), or states as "Score: 8", "8/10" or "8 out of 10"
 * on the judge's scale, is compared with the threshold. Anything else — an empty answer,
 * another first word, a number that is not stated as the score ("Out of 10, I would give it
 * a 3"), a score on another scale or beyond it — is undecided: never a pass.
 */

/** Characters of reason kept: a sentence or two. */
const REASON_MAX = 300;

export interface ReadVerdict {
  verdict: JudgeVerdict;
  /** What the judge gave as its reason: the rest of its answer, or why it could not be read. */
  reason: string | null;
  /** The score the answer states, with `score_at_least` (0 to `out_of`); absent otherwise. */
  score?: number;
}

export function readVerdict(answer: string, pass: JudgePass): ReadVerdict {
  const text = answer.trim();
  if (text === "") return { verdict: "undecided", reason: "the judge gave no answer" };
  if ("starts_with" in pass) {
    const first = /^[\s"'*_`]*([\p{L}\p{N}]+(?:[-/][\p{L}\p{N}]+)*)/u.exec(text);
    const word = first?.[1]?.toLowerCase();
    const rest = reasonAfter(text, first?.[0].length ?? 0);
    if (word === pass.starts_with.toLowerCase()) return { verdict: "pass", reason: rest };
    if (word === (pass.fails_with ?? "no").toLowerCase()) return { verdict: "fail", reason: rest };
    return { verdict: "undecided", reason: `cannot read "${cut(text, 80)}" as a verdict` };
  }
  const top = pass.out_of ?? 10;
  const found = statedScore(text, top);
  const score = found === undefined ? Number.NaN : found.score;
  if (found === undefined || !Number.isFinite(score) || score < 0 || score > top)
    return {
      verdict: "undecided",
      reason: `cannot read a score from 0 to ${top} in "${cut(text, 80)}"`,
    };
  const rest = reasonAfter(text, found.end);
  const said = `score ${score}/${top}${rest === null ? "" : `: ${rest}`}`;
  return { verdict: score >= pass.score_at_least ? "pass" : "fail", reason: said, score };
}

/** The score a recorded answer states (`score_at_least`); undefined for none or another form. */
export function scoreOf(answer: string | null, pass: JudgePass): number | undefined {
  return answer === null ? undefined : readVerdict(answer, pass).score;
}

const NUMBER = String.raw`(-?\d+(?:\.\d+)?)`;
const SCALE = String.raw`(?:\s*\/\s*|\s+out\s+of\s+)(\d+(?:\.\d+)?)`;
/** A score the answer begins with, with or without its scale. */
const LEADING = new RegExp(String.raw`^[\s"'*_\`(]*${NUMBER}(?:${SCALE})?(?![\d.]*\d)`, "i");
/** A score stated anywhere: "Score: 8", or one on a scale, "8/10", "8 out of 10". */
const STATED = new RegExp(
  String.raw`\bscore\b[\s*_"'\`]*(?:is|of|:|=|-)?[\s*_"'\`]*${NUMBER}(?:${SCALE})?|${NUMBER}${SCALE}`,
  "i",
);

/** The score the answer states on the `top` scale, and where its statement ends. */
function statedScore(text: string, top: number): { score: number; end: number } | undefined {
  for (const form of [LEADING, STATED]) {
    const match = form.exec(text);
    if (match === null) continue;
    // "Score: 8 (/10)" fills groups 1–2; "8/10" alone fills 3–4.
    const number = match[1] ?? match[3];
    const scale = match[2] ?? match[4];
    if (number === undefined) continue;
    if (scale !== undefined && Number(scale) !== top) return undefined;
    return { score: Number(number), end: (match.index ?? 0) + match[0].length };
  }
  return undefined;
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
