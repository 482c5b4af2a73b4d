import { isRecord } from "../core/values.js";
import type { SseEvent } from "./sse.js";
import {
  fail,
  isCutOff,
  type Json,
  type OnText,
  parseEvent,
  readToolCall,
  recordOrNull,
  stringOr,
  type TextAnswer,
} from "./text-answer.js";

/**
 * Chat completions: `choices[].message` whole, or chunks of `choices[].delta` ending in
 * `[DONE]`. A streamed tool call comes in fragments keyed by `index`: the first carries `id`,
 * `type` and `function.name`, later ones append to `function.arguments`.
 */

/** Chat, and the contract's shape of a responses reply: `choices[0].message`, `finish_reason`, `usage`. */
export function readChoices(data: Json, where: string): TextAnswer {
  const { choices } = data;
  if (!Array.isArray(choices) || choices.length === 0) fail(where, "no choices");
  const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
  if (!isRecord(choice) || !isRecord(choice.message)) fail(where, "choices[0] has no message");
  const { content, refusal, tool_calls: calls } = choice.message;
  if (content !== null && content !== undefined && typeof content !== "string") {
    fail(where, "choices[0].message.content is not a string");
  }
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) {
    fail(where, "choices[0].message.tool_calls is not an array");
  }
  const sent = stringOr(choice.finish_reason, null);
  const toolCalls = (calls ?? []).map((call: unknown, i: number) => {
    const fn = isRecord(call) ? recordOrNull(call.function) : null;
    if (!isRecord(call) || typeof fn?.name !== "string" || fn.name === "") {
      fail(where, `tool_calls[${i}] has no function name`);
    }
    return readToolCall(
      where,
      { id: call.id, name: fn.name, arguments: fn.arguments },
      isCutOff(sent),
    );
  });
  // The vendor ends a refusal with `stop`, like an answer: the refusal field tells them apart,
  // and the finish reason is kept as the vendor sent it.
  const refused = stringOr(refusal, null);
  const alternatives = choices
    .filter((entry): entry is Json => isRecord(entry) && isRecord(entry.message))
    .sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0))
    .map((entry) => stringOr((entry.message as Json).content, ""));
  return {
    text: content ?? "",
    choices: alternatives,
    finishReason: sent,
    usage: recordOrNull(data.usage),
    toolCalls,
    refusal: refused,
    raw: data,
  };
}

interface CallFragments {
  id: string;
  name: string;
  arguments: string;
}

interface ChoiceSoFar {
  text: string;
  refusal: string | null;
  finish: string | null;
  calls: Map<number, CallFragments>;
}

/** Chat: deltas per choice, `finish_reason`, usage on a late chunk, then `[DONE]`. */
export async function readChatStream(
  events: AsyncIterable<SseEvent>,
  onText: OnText,
  where: string,
): Promise<TextAnswer> {
  const choices = new Map<number, ChoiceSoFar>();
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
      const choice = choices.get(index) ?? {
        text: "",
        refusal: null,
        finish: null,
        calls: new Map(),
      };
      choices.set(index, choice);
      const delta = recordOrNull(entry.delta) ?? {};
      if (typeof delta.content === "string" && delta.content !== "") {
        choice.text += delta.content;
        if (index === 0) onText(delta.content);
      }
      if (typeof delta.refusal === "string")
        choice.refusal = (choice.refusal ?? "") + delta.refusal;
      if (Array.isArray(delta.tool_calls)) addFragments(choice.calls, delta.tool_calls, where);
      choice.finish = stringOr(entry.finish_reason, choice.finish);
    }
  }
  if (!done && choices.get(0)?.finish == null) fail(where, "the stream ended before [DONE]");
  const raw = {
    id: head?.id,
    object: "chat.completion",
    created: head?.created,
    model: head?.model,
    choices: [...choices.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, choice]) => ({
        index,
        message: message(choice),
        finish_reason: choice.finish,
      })),
    usage,
  };
  // A stream with no choice at all still reads as an empty answer, not as "no choices".
  if (raw.choices.length === 0) raw.choices.push({ index: 0, message: {}, finish_reason: null });
  return readChoices(raw, where);
}

/** Joins tool-call fragments by their `index` (their place in the list when a server omits it). */
function addFragments(calls: Map<number, CallFragments>, fragments: unknown[], where: string) {
  for (const [position, fragment] of fragments.entries()) {
    if (!isRecord(fragment)) fail(where, "a tool call fragment is not an object");
    const index = typeof fragment.index === "number" ? fragment.index : position;
    const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
    calls.set(index, call);
    if (typeof fragment.id === "string" && fragment.id !== "") call.id = fragment.id;
    const fn = recordOrNull(fragment.function);
    if (typeof fn?.name === "string" && fn.name !== "") call.name = fn.name;
    if (typeof fn?.arguments === "string") call.arguments += fn.arguments;
  }
}

/** A streamed choice as the whole reply's `message`. */
function message(choice: ChoiceSoFar): Json {
  const calls = [...choice.calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, { id, name, arguments: args }]) => ({
      id,
      type: "function",
      function: { name, arguments: args },
    }));
  const empty = choice.text === "" && (calls.length > 0 || choice.refusal !== null);
  return {
    role: "assistant",
    content: empty ? null : choice.text,
    ...(choice.refusal === null ? {} : { refusal: choice.refusal }),
    ...(calls.length === 0 ? {} : { tool_calls: calls }),
  };
}
