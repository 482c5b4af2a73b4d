import type { Random } from "../../core/random.js";

/**
 * Word lists for the simulator's answers. They are used as image captions and short copy, so a
 * sentence reads like one: "A weathered ceramic mug resting on a worn wooden table."
 */

const ADJECTIVES = [
  "quiet",
  "sunlit",
  "weathered",
  "vivid",
  "minimal",
  "rustic",
  "glossy",
  "misty",
  "warm-toned",
  "crisp",
  "muted",
  "golden",
  "delicate",
  "bold",
  "serene",
  "elegant",
] as const;

const SUBJECTS = ["still life", "scene", "composition", "arrangement", "moment"] as const;

const SETTINGS = [
  "resting on a worn wooden table",
  "framed against a pale linen backdrop",
  "set beside a rain-streaked window",
  "glowing under soft evening light",
  "catching the light on a marble shelf",
  "standing before a quiet harbour",
  "arranged on a sunlit kitchen counter",
  "tucked into a cluttered studio corner",
  "balanced on a stone courtyard wall",
  "seen against a field of tall grass",
  "placed on a clean white surface",
  "surrounded by scattered autumn leaves",
] as const;

// `{kw}` is replaced by the answer's main key word.
const DETAILS = [
  "Soft shadows give the scene a calm, unhurried mood.",
  "The muted palette keeps every eye on the {kw}.",
  "Gentle morning light brings out each small texture.",
  "A shallow depth of field lifts the {kw} from its background.",
  "Warm highlights and cool shadows balance the frame.",
  "The framing feels candid, like a moment caught in passing.",
  "Clean lines and plenty of space let the {kw} speak for itself.",
  "Subtle reflections add depth without any clutter.",
] as const;

// Instruction words say what to write, not what it is about; short function words join nothing.
const STOPWORDS = new Set(
  (
    "the and for with from into onto that this these those what which about your you our its " +
    "are was were been has have had can will would should could please use call make give " +
    "write describe caption captions line one short brief photo image picture sentence " +
    "name tell show find some any all each more most very just also then than there here " +
    "over under near behind between above below along around without within where when how " +
    "why who using"
  ).split(" "),
);

interface Keyword {
  word: string;
  start: number;
  end: number;
}

function keywordMatches(text: string): Keyword[] {
  const seen = new Set<string>();
  const words: Keyword[] = [];
  for (const match of text.matchAll(/\p{L}[\p{L}\p{N}'-]*/gu)) {
    const word = match[0].replace(/['-]+$/, "");
    const key = word.toLowerCase();
    // "One-line" is as empty as "one" and "line".
    const empty = key.split(/['-]/).every((part) => part.length < 3 || STOPWORDS.has(part));
    if (empty || seen.has(key)) continue;
    seen.add(key);
    words.push({ word, start: match.index, end: match.index + word.length });
  }
  return words;
}

/** The content words of a text, in order of first appearance (3+ letters, no instruction words). */
export function keywordsOf(text: string): string[] {
  return keywordMatches(text).map((keyword) => keyword.word);
}

/**
 * What a prompt is about: the stretch of its last content words as written ("red bicycle in
 * Amsterdam"), or those words alone when the stretch crosses punctuation or runs long.
 */
function subjectOf(text: string): { phrase: string; main: string } | undefined {
  const keywords = keywordMatches(text).slice(-3);
  const last = keywords.at(-1);
  if (last === undefined) return undefined;
  for (let i = 0; i < keywords.length; i += 1) {
    const span = text.slice((keywords[i] as Keyword).start, last.end);
    if (!/[^\p{L}\p{N}\s'-]/u.test(span) && wordCount(span) <= 6) {
      return { phrase: span.replace(/\s+/g, " "), main: headOf(text, keywords.slice(i)) };
    }
  }
  return { phrase: last.word, main: last.word };
}

function pick<T>(random: Random, list: readonly T[]): T {
  return list[Math.floor(random.next() * list.length)] as T;
}

// The head noun ends the first run of adjacent content words: "red bicycle" in Amsterdam.
function headOf(text: string, keywords: readonly Keyword[]): string {
  for (let i = 0; i + 1 < keywords.length; i += 1) {
    const [word, next] = [keywords[i] as Keyword, keywords[i + 1] as Keyword];
    if (text.slice(word.end, next.start).trim() !== "") return word.word;
  }
  return keywords.at(-1)?.word ?? "subject";
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** A one- or two-sentence caption (10–30 words) about `text`'s subject, settled by `random`. */
export function composeAnswer(random: Random, text: string): string {
  const subject = subjectOf(text);
  const adjective = pick(random, ADJECTIVES);
  const article = /^[aeiou]/i.test(adjective) ? "An" : "A";
  const first = `${article} ${adjective} ${subject?.phrase ?? pick(random, SUBJECTS)} ${pick(random, SETTINGS)}.`;
  const detail = pick(random, DETAILS).replace("{kw}", subject?.main ?? "subject");
  // One sentence only when it is long enough on its own.
  const twoSentences = wordCount(first) < 10 || random.next() < 0.6;
  return twoSentences ? `${first} ${detail}` : first;
}
