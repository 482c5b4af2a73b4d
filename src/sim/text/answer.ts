import { seededRandom } from "../../core/random.js";
import { composeAnswer } from "./words.js";

/**
 * The format-neutral answer: a caption derived from the model and the prompt, then cut by stop
 * sequences and the token limit the way a model stops generating.
 */

const TOKEN = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** Prompt tokens an image costs (the spec states none; a vendor's low-detail figure). */
export const IMAGE_TOKENS = 85;

/** Simulated token count: words and punctuation marks. */
export function countTokens(text: string): number {
  return text.match(TOKEN)?.length ?? 0;
}

/** What the model was asked. */
export interface Prompt {
  /** Everything the model reads (system, all turns, prefill): it seeds the answer. */
  all: string;
  /** The last user turn's text: it supplies the key words and tool mentions. */
  lastUser: string;
  /** Prompt tokens, images and tool definitions included. */
  tokens: number;
}

export interface AnswerLimits {
  maxTokens?: number | undefined;
  stops?: readonly string[] | undefined;
  /** An assistant prefill: the answer continues it rather than starting afresh. */
  prefill?: string | undefined;
  /** The answer settled already (a judge's verdict), in place of a composed one. */
  fixed?: string | undefined;
}

/** Why generation ended, before each format names it. */
export type Finish = "stop" | "length" | "stop_sequence";

export interface Answer {
  text: string;
  tokens: number;
  finish: Finish;
  /** The stop sequence that ended the answer, if one did. */
  stopSequence: string | null;
}

/** The answer of `model` to `prompt`; `variant` tells apart alternatives (chat's `n`). */
export function answerPrompt(
  model: string,
  prompt: Prompt,
  limits: AnswerLimits = {},
  variant = 0,
): Answer {
  const random = seededRandom(`${model}\u0000${prompt.all}\u0000${variant}`);
  let text = limits.fixed ?? composeAnswer(random, prompt.lastUser);
  if (limits.prefill !== undefined && limits.prefill.trim() !== "") {
    text = continuing(limits.prefill, text);
  }
  let finish: Finish = "stop";
  let stopSequence: string | null = null;
  const stop = firstStop(text, limits.stops ?? []);
  if (stop !== undefined) {
    text = text.slice(0, stop.index);
    finish = "stop_sequence";
    stopSequence = stop.sequence;
  }
  const tokens = countTokens(text);
  if (limits.maxTokens !== undefined && tokens > limits.maxTokens) {
    return {
      text: truncate(text, limits.maxTokens),
      tokens: limits.maxTokens,
      finish: "length",
      stopSequence: null,
    };
  }
  return { text, tokens, finish, stopSequence };
}

// After a finished sentence the answer starts anew; mid-sentence it goes on in lower case.
function continuing(prefill: string, text: string): string {
  const space = /\s$/.test(prefill) ? "" : " ";
  if (/[.!?:]\s*$/.test(prefill)) return `${space}${text}`;
  return `${space}${text.charAt(0).toLowerCase()}${text.slice(1)}`;
}

function firstStop(text: string, stops: readonly string[]) {
  let best: { index: number; sequence: string } | undefined;
  for (const sequence of stops) {
    if (sequence === "") continue;
    const index = text.indexOf(sequence);
    if (index >= 0 && (best === undefined || index < best.index)) best = { index, sequence };
  }
  return best;
}

/** What a model says in declining. */
export const REFUSAL_TEXT = "I'm sorry, but I can't help with that request.";

/**
 * Whether the model declines: the server decided so for this call, or the last user turn holds
 * its unsafe word (any case).
 */
export function refuses(
  prompt: Prompt,
  ctx: { unsafeWord?: string | undefined; refuse?: boolean | undefined },
): boolean {
  if (ctx.refuse === true) return true;
  const { unsafeWord } = ctx;
  if (unsafeWord === undefined || unsafeWord === "") return false;
  return prompt.lastUser.toLowerCase().includes(unsafeWord.toLowerCase());
}

/** The first `tokens` tokens of `text`, with the spacing between them. */
export function truncate(text: string, tokens: number): string {
  let end = 0;
  let count = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (count === tokens) break;
    end = match.index + match[0].length;
    count += 1;
  }
  return text.slice(0, end);
}

/** A stable id suffix for things inside one response (tool calls): 24 letters and digits. */
export function idSuffix(seed: string): string {
  const random = seededRandom(seed);
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let id = "";
  for (let i = 0; i < 24; i += 1) id += alphabet[Math.floor(random.next() * alphabet.length)];
  return id;
}
