import type { SseEvent } from "./sse.js";
import { fail, type OnText, type TextAnswer, type TextFormat } from "./text-answer.js";
import { readChatStream } from "./text-chat.js";
import { readMessagesStream } from "./text-messages.js";
import { readNativeStream } from "./text-native.js";
import { readResponsesStream } from "./text-responses.js";

/**
 * Reassembling streamed text answers, format by format. A stream that ends before its end
 * marker is an error, so a cut connection is never stored as a short answer; an answer the
 * model itself ended early (token limit, refusal) keeps what it has.
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
