import { chatReply, chatStream } from "./chat.js";
import { messagesReply } from "./messages.js";
import { messagesStream } from "./messages-stream.js";
import { nativeReply, nativeStream } from "./native.js";
import { responsesReply, responsesStream } from "./responses.js";
import type { Body, TextContext, TextFormat, TextStream } from "./types.js";

/** The text endpoints' wire formats: whole replies in the envelope, or raw vendor streams. */
export type { TextContext, TextFormat, TextStream } from "./types.js";
export { type Quirks, quirksOf, streamWrites } from "./wire.js";

/** The whole JSON response body for a non-streamed call (envelope included). */
export function replyText(format: TextFormat, body: Body, ctx: TextContext): Body {
  switch (format) {
    case "chat":
      return { code: 200, data: chatReply(body, ctx) };
    case "responses":
      return { code: 200, data: responsesReply(body, ctx) };
    case "messages":
      return { code: 200, data: messagesReply(body, ctx) };
    case "native": {
      // The spec's example places usageMetadata beside data, not inside it.
      const { data, usageMetadata } = nativeReply(body, ctx);
      return { code: 200, data, usageMetadata };
    }
    default:
      return unknownFormat(format);
  }
}

/**
 * Whether the request asks for a stream: chat unless `stream` is false (its default is true),
 * the others only when `stream` is true (the server sets it for `streamGenerateContent`).
 */
export function wantsStream(format: TextFormat, body: Body): boolean {
  return format === "chat" ? body.stream !== false : body.stream === true;
}

/** The wire chunks of a streamed answer, in order; `sse` picks native's SSE form (`alt=sse`; default false, a JSON array). */
export function streamText(
  format: TextFormat,
  body: Body,
  ctx: TextContext,
  options: { sse?: boolean } = {},
): TextStream {
  switch (format) {
    case "chat":
      return chatStream(body, ctx);
    case "responses":
      return responsesStream(body, ctx);
    case "messages":
      return messagesStream(body, ctx);
    case "native":
      return nativeStream(body, ctx, options.sse ?? false);
    default:
      return unknownFormat(format);
  }
}

function unknownFormat(format: never): never {
  throw new Error(`unknown text format ${String(format)}`);
}
