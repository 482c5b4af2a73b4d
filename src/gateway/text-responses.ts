import { isRecord } from "../core/values.js";
import type { SseEvent } from "./sse.js";
import {
  describeError,
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
import { readChoices } from "./text-chat.js";

/**
 * Responses: a Responses object whose answer is in `output` items — `message` items with
 * `output_text` (or `refusal`) content, `function_call` items with `name`, `call_id` and JSON
 * `arguments`, and reasoning, web search or file search items that hold no answer. Streamed,
 * it comes as typed events: `response.output_text.delta` carries the text as it is written,
 * and `response.completed` (or `response.incomplete`, `response.failed`) the final object.
 * A message item may carry a `phase`: `commentary` (what the model says it is about to do) or
 * `final_answer`; only the final answer is the text, the commentary is kept beside it.
 */

/** A message item the model wrote as commentary rather than as its answer. */
function isCommentary(item: Json): boolean {
  return item.phase === "commentary";
}

/** A Responses object (or the contract's chat-like `choices` shape) as a text answer. */
export function readResponse(data: Json, where: string): TextAnswer {
  if (!Array.isArray(data.output)) {
    // The contract shows this endpoint's reply as `choices`; the vendor's object lists `output`.
    if (data.choices !== undefined) return readChoices(data, where);
    fail(where, "the response has no output items");
  }
  if (data.status === "failed") fail(where, `the response failed: ${reasonOf(data.error)}`);
  const incomplete = data.status === "incomplete";
  let text = "";
  const commentary: string[] = [];
  let refusal: string | null = null;
  const toolCalls: ToolCall[] = [];
  for (const item of data.output) {
    if (!isRecord(item)) fail(where, "an output item is not an object");
    if (item.type === "message") {
      if (!Array.isArray(item.content)) fail(where, "a message item has no content list");
      let written = "";
      for (const part of item.content) {
        if (!isRecord(part)) fail(where, "a content part is not an object");
        if (part.type === "output_text") written += stringOr(part.text, "");
        if (part.type === "refusal") refusal = (refusal ?? "") + stringOr(part.refusal, "");
      }
      if (isCommentary(item)) commentary.push(written);
      else text += written;
    } else if (item.type === "function_call") {
      if (typeof item.name !== "string" || item.name === "") {
        fail(where, "a function_call item has no name");
      }
      const call = { id: item.call_id ?? item.id, name: item.name, arguments: item.arguments };
      toolCalls.push(readToolCall(where, call, incomplete || item.status === "incomplete"));
    }
  }
  return {
    text,
    choices: [text],
    finishReason: finishOf(data, toolCalls),
    usage: recordOrNull(data.usage),
    toolCalls,
    refusal,
    ...(commentary.length > 0 ? { commentary } : {}),
    raw: data,
  };
}

/**
 * The finish reason in the contract's words for this endpoint (`stop`, `tool_calls`, `length`),
 * from the object's `status` and `incomplete_details.reason`.
 */
function finishOf(data: Json, toolCalls: readonly ToolCall[]): string {
  if (data.status === "incomplete") {
    const reason = stringOr(recordOrNull(data.incomplete_details)?.reason, "incomplete");
    return reason === "max_output_tokens" ? "length" : reason;
  }
  return toolCalls.length > 0 ? "tool_calls" : "stop";
}

function reasonOf(error: unknown): string {
  return isRecord(error) ? describeError(error) : "no reason given";
}

/** Responses: text deltas as they come; the final event carries the whole answer. */
export async function readResponsesStream(
  events: AsyncIterable<SseEvent>,
  onText: OnText,
  where: string,
): Promise<TextAnswer> {
  let streamed = "";
  let final: Json | undefined;
  // Commentary items by id and by index: their deltas are no part of the answer's text.
  const commentary = new Set<unknown>();
  for await (const event of events) {
    const data = parseEvent(event, where);
    const type = stringOr(data.type, event.event);
    if (type === "response.output_item.added" && isRecord(data.item) && isCommentary(data.item)) {
      for (const mark of [data.item.id, data.output_index])
        if (mark !== undefined) commentary.add(mark);
    } else if (type === "response.output_text.delta" && typeof data.delta === "string") {
      const aside = commentary.has(data.item_id) || commentary.has(data.output_index);
      if (!aside) streamed += data.delta;
      if (data.delta !== "") onText(data.delta);
    } else if (type === "response.completed" || type === "response.incomplete") {
      if (!isRecord(data.response)) fail(where, `${type} carries no response object`);
      final = data.response;
    } else if (type === "response.failed") {
      fail(where, `the response failed: ${reasonOf(recordOrNull(data.response)?.error)}`);
    } else if (type === "error") {
      // The error event names its code and message at the top level (its `type` is `error`).
      fail(
        where,
        `the stream reported ${describeError({ code: data.code, message: data.message })}`,
      );
    }
  }
  if (final === undefined) fail(where, "the stream ended before response.completed");
  const answer = readResponse(final, where);
  // The final object is authoritative; the deltas stand in if it leaves the text out.
  return answer.text === "" && streamed !== ""
    ? { ...answer, text: streamed, choices: [streamed] }
    : answer;
}
