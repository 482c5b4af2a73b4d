import { seededRandom } from "../../core/random.js";

/** One server-sent event: an optional `event:` line and one `data:` line of JSON (or text). */
export function sseEvent(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`;
}

/**
 * The answer in stream pieces of 1–3 words each (spacing kept, so they join back exactly);
 * `[""]` for an empty answer, since every stream carries at least one piece.
 */
export function streamPieces(text: string, seed: string): string[] {
  // Split before each run of spaces that follows a word: "A quiet mug" → "A", " quiet", " mug".
  const words = text.split(/(?<=\S)(?=\s)/).filter((word) => word !== "");
  if (words.length === 0) return [""];
  const random = seededRandom(`${seed}\u0000pieces`);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; ) {
    const size = 1 + Math.floor(random.next() * 3);
    pieces.push(words.slice(i, i + size).join(""));
    i += size;
  }
  return pieces;
}
