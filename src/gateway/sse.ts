import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One server-sent event: its `event:` name (if any) and its data lines joined. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * The events of a server-sent events body, as they complete. Chunks may split anywhere, even
 * inside a multi-byte character; a last event without its closing blank line is still read.
 */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push({ event: message.event, data: message.data });
    },
  });
  // One decoder for the whole body keeps a character's bytes together across chunks.
  const decoder = new TextDecoder("utf-8");
  for await (const chunk of body) {
    parser.feed(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
    yield* pending.splice(0);
  }
  // Some servers end on `data: [DONE]` without the blank line that would dispatch it.
  parser.feed(`${decoder.decode()}\n\n`);
  yield* pending.splice(0);
}
