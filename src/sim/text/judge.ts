import { createHash } from "node:crypto";
import { hashUnit } from "../../core/random.js";
import { isRecord } from "../../core/values.js";
import type { Body, TextFormat } from "./types.js";

/**
 * The simulator's text models judge pictures: a call that holds pictures and asks for a verdict
 * in the words gwrun's judges ask it ("Begin your answer with "yes" or "no"…", "…with a score
 * from 0 to 10…") is answered from what the simulator knows of the pictures — the seed each was
 * drawn from and the prompt behind it — deterministically, a share `noShare` of pictures "no".
 */

const WORDS = /Begin your answer with "([^"]+)" or "([^"]+)"/;
const SCORE = /Begin your answer with a score from 0 to (\d+(?:\.\d+)?)/;

/** What the simulator knows of a picture it was shown. */
export interface SeenPicture {
  /** The seed it was drawn from, or the hash of bytes it did not draw. */
  seed: string;
  prompt: string | undefined;
}

/** Why a picture is turned down, the seed picking one. */
const FLAWS = [
  "the subject is cut off at the edge of the frame",
  "there is stray text in the picture",
  "the lighting hides the subject",
  "the picture does not show what was asked",
];

/** The verdict the call asks for, or undefined when it asks none (or shows no picture). */
export function judgeVerdict(
  format: TextFormat,
  body: Body,
  see: (image: { url: string } | { data: string }) => SeenPicture,
  noShare: number,
): string | undefined {
  const text = stringsOf(body).join("\n");
  const words = WORDS.exec(text);
  const score = SCORE.exec(text);
  if (words === null && score === null) return undefined;
  const pictures = imagesOf(format, body).map(see);
  if (pictures.length === 0) return undefined;
  const seed = pictures.map((picture) => picture.seed).join("+");
  const draw = hashUnit("judge", seed);
  const no = draw < noShare;
  const prompt = pictures.find((picture) => picture.prompt !== undefined)?.prompt;
  const shown = prompt === undefined ? "what was asked" : `"${prompt.slice(0, 120)}"`;
  const reason = no
    ? (FLAWS[Math.floor(hashUnit("flaw", seed) * FLAWS.length)] as string)
    : `it shows ${shown}, whole and clear`;
  if (score !== null) {
    const top = Number(score[1]);
    const given = no
      ? Math.floor(draw * 4)
      : Math.min(top, 7 + Math.floor(hashUnit("score", seed) * 4));
    return `${given}/${top}. ${capital(reason)}.`;
  }
  const [, yes, nay] = words as RegExpExecArray;
  return `${capital((no ? nay : yes) as string)}. ${capital(reason)}.`;
}

function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return value.startsWith("data:") ? [] : [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  return isRecord(value) ? Object.values(value).flatMap(stringsOf) : [];
}

function capital(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

/** The pictures of a call, in its format's own image form. */
function imagesOf(format: TextFormat, body: Body): ({ url: string } | { data: string })[] {
  const found: ({ url: string } | { data: string })[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    if (!isRecord(value)) return;
    if (
      format === "responses" &&
      value.type === "input_image" &&
      typeof value.image_url === "string"
    )
      found.push(
        value.image_url.startsWith("data:") ? { data: value.image_url } : { url: value.image_url },
      );
    else if (format === "messages" && value.type === "image" && isRecord(value.source)) {
      const { source } = value;
      if (typeof source.url === "string") found.push({ url: source.url });
      else if (typeof source.data === "string") found.push({ data: source.data });
    } else if (format === "native" && isRecord(value.inline_data)) {
      const data = value.inline_data.data;
      if (typeof data === "string") found.push({ data });
    } else for (const item of Object.values(value)) visit(item);
  };
  visit(body);
  return found;
}

/** The hash that stands for bytes the simulator did not draw (or cannot tell it drew). */
export function bytesSeed(data: string): string {
  const base64 = data.replace(/^data:[^,]*,/, "");
  return createHash("sha256").update(Buffer.from(base64, "base64")).digest("hex").slice(0, 16);
}
