import { isRecord } from "../core/values.js";
import type { SseEvent } from "./sse.js";

/**
 * What a text answer is, whatever its wire format, and the helpers the format readers share
 * (`text-chat.ts`, `text-responses.ts`, `text-messages.ts`, `text-native.ts`). Readers are
 * lenient where real gateways vary (usage late or missing, extra fields, no envelope, empty
 * deltas) and strict where they cannot go on: a malformed answer is an Error naming the format
 * and the problem.
 */

/** The four text wire formats (chat completions, responses, messages, native). */
export type TextFormat = "chat" | "responses" | "messages" | "native";

/** A function call the model asks for, its arguments parsed. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Set when the answer was cut off (token limit) inside this call's arguments: `arguments`
   * is then `{}` and `raw_arguments` holds the text that had arrived.
   */
  partial?: true;
  raw_arguments?: string;
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
  /** What the model said in declining, when it refused (`""` when it gave no words); else null. */
  refusal: string | null;
  /**
   * Responses' `commentary` messages (what the model said it was about to do), in order, when
   * it wrote any; they are not part of `text`.
   */
  commentary?: string[];
  /** The whole vendor response (for non-stream: the data object; for streams: the final/assembled object) */
  raw: unknown;
}

export type Json = Record<string, unknown>;
export type OnText = (delta: string) => void;

/** The messages format's stop reason for a refusal. */
export const REFUSAL = "refusal";

export function fail(where: string, problem: string): never {
  throw new Error(`${where}: ${problem}`);
}

export function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === "string" ? value : fallback;
}

export function recordOrNull(value: unknown): Json | null {
  return isRecord(value) ? value : null;
}

/** `type: message`, or `code: message` (the responses format names its errors by code). */
export function describeError(error: Json): string {
  const message = stringOr(error.message, "no message");
  const kind = stringOr(error.type, stringOr(error.code, undefined));
  return kind === undefined ? message : `${kind}: ${message}`;
}

/** An event's data as a JSON object; an error object in it becomes the Error it reports. */
export function parseEvent(event: SseEvent, where: string): Json {
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

/**
 * A tool call from its wire parts. Arguments come as a JSON string (chat-like formats, streamed
 * tool input) or an object. When the answer was `cutOff` by its token limit, arguments that do
 * not parse are kept as raw text on a `partial` call; otherwise they are an error.
 */
export function readToolCall(
  where: string,
  call: { id: unknown; name: string; arguments: unknown },
  cutOff: boolean,
): ToolCall {
  const id = stringOr(call.id, "");
  const { name, arguments: value } = call;
  if (value === undefined || value === null || value === "") return { id, name, arguments: {} };
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      if (cutOff) return { id, name, arguments: {}, partial: true, raw_arguments: value };
      fail(where, `the arguments of tool call ${name} are not JSON`);
    }
  }
  if (!isRecord(parsed)) {
    if (cutOff && typeof value === "string") {
      return { id, name, arguments: {}, partial: true, raw_arguments: value };
    }
    fail(where, `the arguments of tool call ${name} are not an object`);
  }
  return { id, name, arguments: parsed };
}

/** Finish reasons that say the answer stopped at its token limit, in any format's words. */
const CUT_OFF = new Set(["length", "max_tokens", "model_context_window_exceeded", "MAX_TOKENS"]);

/** Whether a finish reason says the answer was cut off by its token limit. */
export function isCutOff(finishReason: string | null): boolean {
  return finishReason !== null && CUT_OFF.has(finishReason);
}

/**
 * Finish reasons that say the model declined or was stopped by a filter, in any format's words:
 * chat's and responses' `content_filter`, messages' `refusal`, native's safety and policy stops.
 */
const DECLINED = new Set([
  "content_filter",
  REFUSAL,
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
]);

/** Whether a finish reason says the model declined (a refusal, a safety or content filter). */
export function isDeclined(finishReason: string | null): boolean {
  return finishReason !== null && DECLINED.has(finishReason);
}
