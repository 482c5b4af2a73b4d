import { isRecord } from "../core/values.js";

/**
 * Reading the text endpoints' answers, whole or streamed, in their four wire formats. Readers are
 * lenient where real gateways vary (usage late or missing, extra fields, no envelope) and strict
 * where they cannot go on: a malformed answer is an Error naming the format and the problem.
 */

/** The four text wire formats (chat completions, responses, messages, native). */
export type TextFormat = "chat" | "responses" | "messages" | "native";

/** A function call the model asks for, its arguments parsed. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A text answer in any format. */
export interface TextAnswer {
  /** The first choice's text. */
  text: string;
  /** Every choice's text in order (chat's `n` alternatives); `[text]` for one answer. */
  choices: string[];
  finishReason: string | null;
  usage: Record<string, unknown> | null;
  toolCalls: ToolCall[];
  /** The whole vendor response (for non-stream: the data object; for streams: the final/assembled object) */
  raw: unknown;
}

export type Json = Record<string, unknown>;
export type OnText = (delta: string) => void;

export function fail(where: string, problem: string): never {
  throw new Error(`${where}: ${problem}`);
}

export function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === "string" ? value : fallback;
}

export function recordOrNull(value: unknown): Json | null {
  return isRecord(value) ? value : null;
}

export function describeError(error: Json): string {
  const message = stringOr(error.message, "no message");
  return typeof error.type === "string" ? `${error.type}: ${message}` : message;
}

/** Arguments come as a JSON string (chat-like formats, streamed tool input) or an object. */
export function parseArguments(value: unknown, where: string, name: string): Json {
  if (value === undefined || value === "") return {};
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      fail(where, `the arguments of tool call ${name} are not JSON`);
    }
  }
  if (!isRecord(parsed)) fail(where, `the arguments of tool call ${name} are not an object`);
  return parsed;
}

/** Reads a non-streamed reply body (the parsed JSON, envelope included; tolerate a bare vendor object without envelope too). */
export function readTextReply(format: TextFormat, json: unknown): TextAnswer {
  const where = `${format} reply`;
  if (!isRecord(json)) fail(where, "the body is not a JSON object");
  if (isRecord(json.error)) fail(where, `the gateway reported ${describeError(json.error)}`);
  let data: unknown = json;
  if ("code" in json && "data" in json) {
    if (json.code !== 200 && json.code !== "200" && json.code !== "success") {
      fail(where, `envelope code ${JSON.stringify(json.code)}`);
    }
    data = json.data;
  }
  if (!isRecord(data)) fail(where, "data is not an object");
  switch (format) {
    case "chat":
    case "responses":
      return readChoices(data, where);
    case "messages":
      return readMessage(data, where);
    case "native": {
      // The spec's example puts usageMetadata beside data; the vendor puts it inside.
      const usage = recordOrNull(json.usageMetadata) ?? recordOrNull(data.usageMetadata);
      return readNative(data, usage, where);
    }
    default:
      return fail(where, `unknown text format ${String(format satisfies never)}`);
  }
}

/** Chat and the gateway's responses: `choices[0].message`, `finish_reason`, `usage`. */
export function readChoices(data: Json, where: string): TextAnswer {
  const { choices } = data;
  if (!Array.isArray(choices) || choices.length === 0) fail(where, "no choices");
  const choice = choices.find((entry) => isRecord(entry) && (entry.index ?? 0) === 0);
  if (!isRecord(choice) || !isRecord(choice.message)) fail(where, "choices[0] has no message");
  const { content, tool_calls: calls } = choice.message;
  if (content !== null && content !== undefined && typeof content !== "string") {
    fail(where, "choices[0].message.content is not a string");
  }
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) {
    fail(where, "choices[0].message.tool_calls is not an array");
  }
  const toolCalls = (calls ?? []).map((call: unknown, i: number) => {
    if (!isRecord(call) || !isRecord(call.function) || typeof call.function.name !== "string") {
      fail(where, `tool_calls[${i}] has no function name`);
    }
    const { name, arguments: args } = call.function;
    return { id: stringOr(call.id, ""), name, arguments: parseArguments(args, where, name) };
  });
  const finishReason = stringOr(choice.finish_reason, null);
  const alternatives = choices
    .filter((entry): entry is Json => isRecord(entry) && isRecord(entry.message))
    .sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0))
    .map((entry) => stringOr((entry.message as Json).content, ""));
  return {
    text: content ?? "",
    choices: alternatives,
    finishReason,
    usage: recordOrNull(data.usage),
    toolCalls,
    raw: data,
  };
}

/** Messages: text and tool_use blocks, `stop_reason`, `usage`. */
export function readMessage(data: Json, where: string): TextAnswer {
  if (!Array.isArray(data.content)) fail(where, "content is not an array of blocks");
  let text = "";
  const toolCalls: ToolCall[] = [];
  for (const block of data.content) {
    if (!isRecord(block)) fail(where, "a content block is not an object");
    if (block.type === "text") text += stringOr(block.text, "");
    if (block.type !== "tool_use") continue;
    if (typeof block.name !== "string") fail(where, "a tool_use block has no name");
    const args = parseArguments(block.input, where, block.name);
    toolCalls.push({ id: stringOr(block.id, ""), name: block.name, arguments: args });
  }
  const finishReason = stringOr(data.stop_reason, null);
  return {
    text,
    choices: [text],
    finishReason,
    usage: recordOrNull(data.usage),
    toolCalls,
    raw: data,
  };
}

/** Native: `candidates[0].content.parts`, `finishReason`, `usageMetadata`. */
function readNative(data: Json, usage: Json | null, where: string): TextAnswer {
  const { candidates } = data;
  if (!Array.isArray(candidates) || candidates.length === 0) {
    const blocked = stringOr(recordOrNull(data.promptFeedback)?.blockReason, undefined);
    fail(where, blocked === undefined ? "no candidates" : `the prompt was blocked (${blocked})`);
  }
  const candidate = candidates[0];
  if (!isRecord(candidate)) fail(where, "candidates[0] is not an object");
  const text = candidateText(candidate, where);
  const finishReason = stringOr(candidate.finishReason, null);
  return { text, choices: [text], finishReason, usage, toolCalls: [], raw: data };
}

/** A native candidate's text, thought parts left out. */
export function candidateText(candidate: Json, where: string): string {
  const { content } = candidate;
  // A candidate stopped early (safety, length) may come without content.
  if (content === undefined) return "";
  if (!isRecord(content) || !Array.isArray(content.parts)) fail(where, "a candidate has no parts");
  let text = "";
  for (const part of content.parts) {
    if (!isRecord(part)) fail(where, "a content part is not an object");
    if (typeof part.text === "string" && part.thought !== true) text += part.text;
  }
  return text;
}
