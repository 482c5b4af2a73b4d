import { readSse } from "../../src/gateway/sse.js";
import type { TextAnswer, TextFormat } from "../../src/gateway/text-answer.js";
import { readTextStream } from "../../src/gateway/text-stream.js";

/** One event of a fixture stream: its `event:` name (or none) and its data, as JSON or text. */
export type FixtureEvent = [event: string | undefined, data: unknown];

/** A server-sent events body, as a server writes it; `crlf` ends lines with CR LF. */
export function sseText(events: readonly FixtureEvent[], options: { crlf?: boolean } = {}): string {
  const eol = options.crlf === true ? "\r\n" : "\n";
  return events
    .map(([event, data]) => {
      const payload = typeof data === "string" ? data : JSON.stringify(data);
      return `${event === undefined ? "" : `event: ${event}${eol}`}data: ${payload}${eol}${eol}`;
    })
    .join("");
}

/** The body's bytes re-split every `size` bytes, wherever that falls (inside a character too). */
export async function* bytesOf(
  chunks: readonly string[] | string,
  size: number,
): AsyncGenerator<Uint8Array> {
  const all = new TextEncoder().encode(typeof chunks === "string" ? chunks : chunks.join(""));
  for (let i = 0; i < all.length; i += size) yield all.subarray(i, i + size);
}

/** Reads a fixture body split every `size` bytes; the text increments seen come back too. */
export async function readFixture(
  format: TextFormat,
  body: string,
  size = 5,
): Promise<{ answer: TextAnswer; deltas: string[] }> {
  const deltas: string[] = [];
  const answer = await readTextStream(format, readSse(bytesOf(body, size)), (delta) =>
    deltas.push(delta),
  );
  return { answer, deltas };
}
