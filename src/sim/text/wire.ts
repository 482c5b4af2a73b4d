import { hashUnit, seededRandom } from "../../core/random.js";

/**
 * How answers travel: stream pieces, server-sent events, and the awkward things real servers
 * do now and then — CR LF line endings, empty deltas, a multi-byte character split between two
 * writes. Each is settled by the response id, so the same call streams the same way.
 */

/** The quirks of one response's stream. */
export interface Quirks {
  /** Lines end in CR LF. */
  crlf: boolean;
  /** Deltas without text between the real ones. */
  emptyDeltas: boolean;
  /** A write is split inside a multi-byte character (when the stream has one). */
  splitCharacters: boolean;
  /** Native: the finish reason comes in a last chunk whose content has a role but no parts. */
  partlessLastChunk: boolean;
  /** Messages: more `ping` events between the deltas. */
  extraPings: boolean;
}

/** Each quirk is on for about half of all response ids. */
export function quirksOf(id: string): Quirks {
  const on = (name: keyof Quirks) => hashUnit(id, "quirk", name) < 0.5;
  return {
    crlf: on("crlf"),
    emptyDeltas: on("emptyDeltas"),
    splitCharacters: on("splitCharacters"),
    partlessLastChunk: on("partlessLastChunk"),
    extraPings: on("extraPings"),
  };
}

/** Writes one server-sent event: an optional `event:` line and one `data:` line of JSON (or text). */
export type SseWriter = (data: unknown, event?: string) => string;

/** An event writer with the stream's line endings. */
export function sseWriter(quirks: Pick<Quirks, "crlf">): SseWriter {
  const eol = quirks.crlf ? "\r\n" : "\n";
  return (data, event) => {
    const payload = typeof data === "string" ? data : JSON.stringify(data);
    return `${event === undefined ? "" : `event: ${event}${eol}`}data: ${payload}${eol}${eol}`;
  };
}

/**
 * The answer in stream pieces of 1–3 words each (spacing kept, so they join back exactly);
 * `[""]` for an empty answer, since every stream carries at least one piece. With `empty`,
 * an empty piece follows now and then, as real servers send deltas without text.
 */
export function streamPieces(text: string, seed: string, empty = false): string[] {
  // Split before each run of spaces that follows a word: "A quiet mug" → "A", " quiet", " mug".
  const words = text.split(/(?<=\S)(?=\s)/).filter((word) => word !== "");
  if (words.length === 0) return [""];
  const random = seededRandom(`${seed}\u0000pieces`);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; ) {
    const size = 1 + Math.floor(random.next() * 3);
    pieces.push(words.slice(i, i + size).join(""));
    if (empty && random.next() < 0.25) pieces.push("");
    i += size;
  }
  return pieces;
}

/** Tool arguments as JSON fragments that only parse once joined; the first is empty. */
export function jsonPieces(json: string): string[] {
  const pieces = [""];
  for (let i = 0; i < json.length; i += 12) pieces.push(json.slice(i, i + 12));
  return pieces;
}

/**
 * The writes of a stream: each chunk as it is, or — when the stream splits characters — the
 * first chunk holding a multi-byte character as two writes that cut that character in two.
 */
export function streamWrites(stream: {
  chunks: readonly string[];
  splitCharacters: boolean;
}): (string | Uint8Array)[] {
  if (!stream.splitCharacters) return [...stream.chunks];
  const at = stream.chunks.findIndex((chunk) => /[^\p{ASCII}]/u.test(chunk));
  if (at < 0) return [...stream.chunks];
  const chunk = stream.chunks[at] as string;
  const bytes = Buffer.from(chunk, "utf8");
  // The byte after the first lead byte is a continuation byte: cut there.
  const cut = Buffer.byteLength(chunk.slice(0, chunk.search(/[^\p{ASCII}]/u))) + 1;
  return [
    ...stream.chunks.slice(0, at),
    bytes.subarray(0, cut),
    bytes.subarray(cut),
    ...stream.chunks.slice(at + 1),
  ];
}
