import { isRecord } from "../core/values.js";
import type { SseEvent } from "./sse.js";
import {
  fail,
  isCutOff,
  type Json,
  type OnText,
  parseEvent,
  REFUSAL,
  readToolCall,
  recordOrNull,
  stringOr,
  type TextAnswer,
  type ToolCall,
} from "./text-answer.js";

/**
 * Messages: `content` blocks (text, tool_use, thinking), `stop_reason`, `usage`. Streamed, as
 * `message_start`, blocks built from `content_block_delta` events (`text_delta`, tool input as
 * `input_json_delta` fragments), `ping`s, `message_delta` with the stop reason and the output
 * usage, and `message_stop`.
 */

/** Messages: text and tool_use blocks, `stop_reason`, `usage`. */
export function readMessage(data: Json, where: string): TextAnswer {
  if (!Array.isArray(data.content)) fail(where, "content is not an array of blocks");
  const finishReason = stringOr(data.stop_reason, null);
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const block of data.content) {
    if (!isRecord(block)) fail(where, "a content block is not an object");
    if (block.type === "text") text += stringOr(block.text, "");
    if (block.type !== "tool_use") continue;
    if (typeof block.name !== "string") fail(where, "a tool_use block has no name");
    const call = { id: block.id, name: block.name, arguments: block.input };
    toolCalls.push(readToolCall(where, call, isCutOff(finishReason)));
  }
  // A refusal adds no words to the content; `stop_details` may explain it.
  const refusal =
    finishReason === REFUSAL ? stringOr(recordOrNull(data.stop_details)?.explanation, "") : null;
  return {
    text,
    choices: [text],
    finishReason,
    usage: recordOrNull(data.usage),
    toolCalls,
    refusal,
    raw: data,
  };
}

interface OpenBlock {
  block: Json;
  text: string;
  json: string;
}

/** Messages: message_start, content blocks built from deltas, message_delta, message_stop. */
export async function readMessagesStream(
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
      if (delta.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") {
        open.text += delta.text;
        onText(delta.text);
      } else if (delta.type === "input_json_delta") {
        open.json += stringOr(delta.partial_json, "");
      }
    } else if (type === "message_delta") {
      const delta = recordOrNull(data.delta) ?? {};
      stop = {
        stop_reason: delta.stop_reason ?? null,
        stop_sequence: delta.stop_sequence ?? null,
        ...(delta.stop_details === undefined ? {} : { stop_details: delta.stop_details }),
      };
      // message_start counted the input; message_delta counts the output (and may repeat both).
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
      return { ...block, input: joinedInput(json) };
    });
  return readMessage({ ...message, content, ...stop, usage }, where);
}

// Tool input parses once its fragments are joined; input cut off by the token limit stays text
// for `readMessage` to keep as a partial call.
function joinedInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
