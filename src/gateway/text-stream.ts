import { isRecord } from "../core/values.js";
import type { SseEvent } from "./sse.js";
import {
  candidateText,
  describeError,
  fail,
  type Json,
  type OnText,
  parseArguments,
  readChoices,
  readMessage,
  recordOrNull,
  stringOr,
  type TextAnswer,
  type TextFormat,
} from "./text-answer.js";

/**
 * Reassembling streamed text answers, format by format. A stream that ends before its end
 * marker is an error, so a cut connection is never stored as a short answer.
 */

/** Reassembles a stream; `onText` is called with each text increment as it arrives. */
export async function readTextStream(
  format: TextFormat,
  events: AsyncIterable<SseEvent>,
  onText: OnText = () => {},
): Promise<TextAnswer> {
  const where = `${format} stream`;
  switch (format) {
    case "chat":
      return readChatStream(events, onText, where);
    case "responses":
      return readResponsesStream(events, onText, where);
    case "messages":
      return readMessagesStream(events, onText, where);
    case "native":
      return readNativeStream(events, onText, where);
    default:
      return fail(where, `unknown text format ${String(format satisfies never)}`);
  }
}

/** An event's data as a JSON object; an error object in it becomes the Error it reports. */
function parseEvent(event: SseEvent, where: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(event.data);
  } catch {
    fail(where, `event data is not JSON (${JSON.stringify(event.data.slice(0, 60))})`);
  }
  if (!isRecord(value)) fail(where, "event data is not a JSON object");
  if (isRecord(value.error)) fail(where, `the stream reported ${describeError(value.error)}`);
  return value;
}

/** Chat: content deltas per choice, `finish_reason`, usage on a late chunk, then `[DONE]`. */
async function readChatStream(events: AsyncIterable<SseEvent>, onText: OnText, where: string) {
  const choices = new Map<number, { text: string; finish: string | null }>();
  let head: Json | undefined;
  let usage: Json | null = null;
  let done = false;
  for await (const event of events) {
    if (event.data.trim() === "[DONE]") {
      done = true;
      break;
    }
    const chunk = parseEvent(event, where);
    head ??= chunk;
    if (isRecord(chunk.usage)) usage = chunk.usage;
    // A usage-only chunk may have no choices (or an empty list).
    if (chunk.choices === undefined || chunk.choices === null) continue;
    if (!Array.isArray(chunk.choices)) fail(where, "choices is not an array");
    for (const entry of chunk.choices) {
      if (!isRecord(entry)) fail(where, "a choice is not an object");
      const index = typeof entry.index === "number" ? entry.index : 0;
      const choice = choices.get(index) ?? { text: "", finish: null };
      choices.set(index, choice);
      const content = recordOrNull(entry.delta)?.content;
      if (typeof content === "string" && content !== "") {
        choice.text += content;
        if (index === 0) onText(content);
      }
      choice.finish = stringOr(entry.finish_reason, choice.finish);
    }
  }
  const first = choices.get(0) ?? { text: "", finish: null };
  if (!done && first.finish === null) fail(where, "the stream ended before [DONE]");
  const raw = {
    id: head?.id,
    object: "chat.completion",
    created: head?.created,
    model: head?.model,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, { text, finish }]) => ({
        index,
        message: { role: "assistant", content: text },
        finish_reason: finish,
      })),
    usage,
  };
  const texts = raw.choices.map((choice) => choice.message.content);
  return {
    text: first.text,
    choices: texts,
    finishReason: first.finish,
    usage,
    toolCalls: [],
    raw,
  };
}

/** Responses: text deltas as they come; `response.completed` carries the whole answer. */
async function readResponsesStream(
  events: AsyncIterable<SseEvent>,
  onText: OnText,
  where: string,
): Promise<TextAnswer> {
  let streamed = "";
  let final: Json | undefined;
  for await (const event of events) {
    const data = parseEvent(event, where);
    const type = stringOr(data.type, event.event);
    if (type === "response.output_text.delta" && typeof data.delta === "string") {
      streamed += data.delta;
      onText(data.delta);
    } else if (type === "response.completed" || type === "response.incomplete") {
      if (!isRecord(data.response)) fail(where, `${type} carries no response object`);
      final = data.response;
    } else if (type === "response.failed") {
      const error = recordOrNull(recordOrNull(data.response)?.error);
      fail(
        where,
        `the response failed: ${error === null ? "no reason given" : describeError(error)}`,
      );
    }
  }
  if (final === undefined) fail(where, "the stream ended before response.completed");
  const answer = readChoices(final, where);
  // The final object is authoritative; the deltas stand in if it leaves the text out.
  return answer.text === "" && answer.choices.length <= 1
    ? { ...answer, text: streamed, choices: [streamed] }
    : answer;
}

interface OpenBlock {
  block: Json;
  text: string;
  json: string;
}

/** Messages: message_start, content blocks built from deltas, message_delta, message_stop. */
async function readMessagesStream(
  events: AsyncIterable<SseEvent>,
  onText: OnText,
  where: string,
): Promise<TextAnswer> {
  let message: Json | undefined;
  const blocks = new Map<number, OpenBlock>();
  let usage: Json = {};
  let stop: Json | undefined;
  for await (const event of events) {
    const data = parseEvent(event, where);
    const type = stringOr(data.type, event.event);
    const index = typeof data.index === "number" ? data.index : 0;
    if (type === "message_start") {
      if (!isRecord(data.message)) fail(where, "message_start carries no message");
      message = data.message;
      usage = { ...recordOrNull(message.usage) };
    } else if (type === "content_block_start") {
      const block = data.content_block;
      if (!isRecord(block)) fail(where, "content_block_start carries no content_block");
      const text = stringOr(block.text, "");
      blocks.set(index, { block, text, json: "" });
      if (text !== "") onText(text);
    } else if (type === "content_block_delta") {
      const open = blocks.get(index) ?? fail(where, `a delta for block ${index} before its start`);
      const delta = recordOrNull(data.delta) ?? {};
      if (delta.type === "text_delta" && typeof delta.text === "string") {
        open.text += delta.text;
        onText(delta.text);
      } else if (delta.type === "input_json_delta") {
        open.json += stringOr(delta.partial_json, "");
      }
    } else if (type === "message_delta") {
      const delta = recordOrNull(data.delta) ?? {};
      stop = { stop_reason: delta.stop_reason ?? null, stop_sequence: delta.stop_sequence ?? null };
      // message_start counted the input; message_delta counts the output.
      usage = { ...usage, ...recordOrNull(data.usage) };
    }
  }
  if (message === undefined) fail(where, "the stream had no message_start");
  if (stop === undefined) fail(where, "the stream ended before message_delta");
  const content = [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, { block, text, json }]) => {
      if (block.type === "text") return { ...block, text };
      if (block.type !== "tool_use" || json === "") return block;
      return { ...block, input: parseArguments(json, where, stringOr(block.name, "tool_use")) };
    });
  return readMessage({ ...message, content, ...stop, usage }, where);
}

/** Native: candidate chunks whose text parts join up; finishReason and usageMetadata come late. */
async function readNativeStream(
  events: AsyncIterable<SseEvent>,
  onText: OnText,
  where: string,
): Promise<TextAnswer> {
  let text = "";
  let finishReason: string | null = null;
  let usage: Json | null = null;
  let last: Json = {};
  for await (const event of events) {
    const chunk = parseEvent(event, where);
    if (isRecord(chunk.usageMetadata)) usage = chunk.usageMetadata;
    if (chunk.candidates === undefined) continue;
    if (!Array.isArray(chunk.candidates)) fail(where, "candidates is not an array");
    const candidate = chunk.candidates[0];
    if (!isRecord(candidate)) fail(where, "candidates[0] is not an object");
    const piece = candidateText(candidate, where);
    text += piece;
    if (piece !== "") onText(piece);
    finishReason = stringOr(candidate.finishReason, finishReason);
    last = candidate;
  }
  if (finishReason === null) fail(where, "the stream ended before a finishReason");
  const candidate = { ...last, content: { role: "model", parts: [{ text }] }, finishReason };
  const raw = { candidates: [candidate], usageMetadata: usage };
  return { text, choices: [text], finishReason, usage, toolCalls: [], raw };
}
