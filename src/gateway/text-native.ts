import { isRecord } from "../core/values.js";
import type { SseEvent } from "./sse.js";
import {
  fail,
  type Json,
  type OnText,
  parseEvent,
  readToolCall,
  recordOrNull,
  stringOr,
  type TextAnswer,
  type ToolCall,
} from "./text-answer.js";

/**
 * Native content generation: `candidates[0].content.parts` — text parts (thought parts left
 * out) and `functionCall` parts (a name and an `args` object) — `finishReason`, `usageMetadata`.
 * Streamed, each chunk has that shape with the parts written since the last one; real servers
 * may end on a chunk whose content has a role but no parts.
 */

interface Parts {
  text: string;
  calls: ToolCall[];
  /** The `functionCall` parts as sent, for the assembled response. */
  callParts: Json[];
}

/** A native candidate's text and function calls; a candidate without parts adds none. */
function candidateParts(candidate: Json, where: string): Parts {
  const parts: Parts = { text: "", calls: [], callParts: [] };
  const { content } = candidate;
  // A candidate stopped early (safety, length) may come without content.
  if (content === undefined || content === null) return parts;
  if (!isRecord(content)) fail(where, "a candidate's content is not an object");
  if (content.parts === undefined) return parts;
  if (!Array.isArray(content.parts)) fail(where, "a candidate's parts are not a list");
  for (const part of content.parts) {
    if (!isRecord(part)) fail(where, "a content part is not an object");
    if (typeof part.text === "string" && part.thought !== true) parts.text += part.text;
    const call = recordOrNull(part.functionCall);
    if (call === null) continue;
    if (typeof call.name !== "string" || call.name === "") {
      fail(where, "a functionCall part has no name");
    }
    // Gemini sends arguments as an object, whole, so there is nothing to cut off.
    parts.calls.push(
      readToolCall(where, { id: call.id, name: call.name, arguments: call.args }, false),
    );
    parts.callParts.push(part);
  }
  return parts;
}

function firstCandidate(candidates: unknown[], where: string): Json {
  const candidate = candidates[0];
  if (!isRecord(candidate)) fail(where, "candidates[0] is not an object");
  return candidate;
}

/** Native: `candidates[0].content.parts`, `finishReason`, `usageMetadata`. */
export function readNative(data: Json, usage: Json | null, where: string): TextAnswer {
  const { candidates } = data;
  if (!Array.isArray(candidates) || candidates.length === 0) {
    const blocked = stringOr(recordOrNull(data.promptFeedback)?.blockReason, undefined);
    fail(where, blocked === undefined ? "no candidates" : `the prompt was blocked (${blocked})`);
  }
  const candidate = firstCandidate(candidates, where);
  const { text, calls } = candidateParts(candidate, where);
  const finishReason = stringOr(candidate.finishReason, null);
  return {
    text,
    choices: [text],
    finishReason,
    usage,
    toolCalls: calls,
    refusal: null,
    raw: data,
  };
}

/** Native: candidate chunks whose parts join up; finishReason and usageMetadata come late. */
export async function readNativeStream(
  events: AsyncIterable<SseEvent>,
  onText: OnText,
  where: string,
): Promise<TextAnswer> {
  const all: Parts = { text: "", calls: [], callParts: [] };
  let finishReason: string | null = null;
  let usage: Json | null = null;
  let last: Json = {};
  let lastCandidate: Json = {};
  for await (const event of events) {
    const chunk = parseEvent(event, where);
    last = chunk;
    if (isRecord(chunk.usageMetadata)) usage = chunk.usageMetadata;
    if (chunk.candidates === undefined) continue;
    if (!Array.isArray(chunk.candidates)) fail(where, "candidates is not an array");
    const candidate = firstCandidate(chunk.candidates, where);
    const { text, calls, callParts } = candidateParts(candidate, where);
    all.text += text;
    all.calls.push(...calls);
    all.callParts.push(...callParts);
    if (text !== "") onText(text);
    finishReason = stringOr(candidate.finishReason, finishReason);
    lastCandidate = candidate;
  }
  if (finishReason === null) fail(where, "the stream ended before a finishReason");
  const textParts = all.text !== "" || all.callParts.length === 0 ? [{ text: all.text }] : [];
  const parts = [...textParts, ...all.callParts];
  const candidate = { ...lastCandidate, content: { role: "model", parts }, finishReason };
  const raw = { ...last, candidates: [candidate], usageMetadata: usage };
  return {
    text: all.text,
    choices: [all.text],
    finishReason,
    usage,
    toolCalls: all.calls,
    refusal: null,
    raw,
  };
}
