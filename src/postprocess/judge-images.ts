import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readRecorded } from "../core/file-gate.js";
import { JUDGE_IMAGE_MAX_BYTES, type JudgeImage, takesImageLinks } from "../families/index.js";
import type { JudgeSpec } from "../manifest/index.js";
import { extractFrame, loadSharp, probeMedia } from "../media/index.js";
import type { OutputRow } from "../store/index.js";

/**
 * What a judge is shown of an output. A picture: its link while it still works for a while
 * (responses and messages take links), else its bytes as a Data URI within the format's
 * rules (JPEG, PNG, GIF or WebP, at most 20 MB; a larger or other picture is re-encoded as a
 * JPEG of at most 2048 px). A clip: its poster and `CLIP_FRAMES` frames spread over it, as
 * JPEG Data URIs (a clip's link is no picture).
 */

/** Frames of a clip besides its poster: at a quarter, half and three quarters of its length. */
export const CLIP_FRAMES = 3;

/** A link is used only while it works this much longer (ms): the judge fetches it later. */
const LINK_MARGIN_MS = 10 * 60 * 1000;

/** Pixels on the long side the formats recommend at most. */
const MAX_SIDE = 2048;

const SENT_AS_IS = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

export async function judgeImages(
  output: OutputRow & { path: string },
  poster: string | null,
  judge: Pick<JudgeSpec, "endpoint">,
  now: number,
): Promise<JudgeImage[]> {
  const type = output.content_type ?? "";
  if (type.startsWith("video/") || /\.(mp4|mov|webm)$/i.test(output.path))
    return clipImages(output.path, poster);
  const linkWorks =
    output.url !== null &&
    /^https?:\/\//.test(output.url) &&
    (output.expires_at === null || output.expires_at > now + LINK_MARGIN_MS);
  if (linkWorks && takesImageLinks(judge.endpoint) && output.url !== null)
    return [{ kind: "url", url: output.url }];
  return [await pictureData(output.path, type)];
}

/** No output picture is read past this into memory to be judged. */
const MAX_PICTURE_BYTES = 200 * 1024 * 1024;

async function pictureData(file: string, contentType: string): Promise<JudgeImage> {
  const read = await readRecorded(file, MAX_PICTURE_BYTES);
  if ("problem" in read) throw new Error(read.problem);
  const { bytes } = read;
  if (SENT_AS_IS.has(contentType) && bytes.length <= JUDGE_IMAGE_MAX_BYTES)
    return { kind: "data", mediaType: contentType, base64: bytes.toString("base64") };
  return jpegOf(bytes);
}

async function jpegOf(input: Buffer | string): Promise<JudgeImage> {
  const sharp = await loadSharp();
  const jpeg = await sharp(input)
    .resize(MAX_SIDE, MAX_SIDE, { fit: "inside", withoutEnlargement: true })
    .jpeg({ quality: 85 })
    .toBuffer();
  return { kind: "data", mediaType: "image/jpeg", base64: jpeg.toString("base64") };
}

async function clipImages(file: string, poster: string | null): Promise<JudgeImage[]> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "gwrun-judge-"));
  try {
    const seconds = (await probeMedia(file)).durationSeconds ?? 0;
    const images: JudgeImage[] = [];
    if (poster !== null) images.push(await jpegOf(poster));
    for (let n = 1; n <= CLIP_FRAMES; n++) {
      const frame = path.join(dir, `frame-${n}.jpg`);
      await extractFrame(file, frame, (seconds * n) / (CLIP_FRAMES + 1));
      images.push(await jpegOf(frame));
    }
    return images;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
