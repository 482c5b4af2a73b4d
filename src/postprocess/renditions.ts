import { createHash } from "node:crypto";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import type { FileWrites } from "../core/file-writes.js";
import { hashFile, partialDir } from "../core/output-files.js";
import type { Rendition } from "../manifest/index.js";
import { loadSharp, probeMedia, runFfmpeg } from "../media/index.js";
import { reviewPartial } from "./thumbnails.js";
import { type Marking, mp4Metadata, xmpPacket } from "./xmp.js";

/**
 * One rendition of one output: a picture through sharp, a clip through ffmpeg, written to a
 * partial file and renamed into place, so it is whole or absent. Each carries gwrun's XMP
 * marking (a clip: MP4 metadata tags); none keeps a C2PA signature of its original.
 */

/** A rendition as recorded: `file` relative to the output's folder. */
export interface RenditionRecord {
  name: string;
  file: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
  /** What the rendition was made to (its settings and the marking's prompt choice). */
  spec: string;
}

const EXTENSION: Readonly<Record<Rendition["format"], string>> = {
  jpeg: "jpg",
  png: "png",
  webp: "webp",
  avif: "avif",
  mp4: "mp4",
};

/** Whether a rendition applies to an output of this content type (mp4 to clips only). */
export function renditionApplies(rendition: Rendition, contentType: string | null): boolean {
  const clip = contentType?.startsWith("video/") === true;
  const picture = contentType?.startsWith("image/") === true;
  return rendition.format === "mp4" ? clip : picture;
}

/** `<output's folder>/renditions/<name>/<output's name less its extension>.<ext>`. */
export function renditionPath(file: string, rendition: Rendition): string {
  const stem = path.basename(file, path.extname(file));
  const name = `${stem}.${EXTENSION[rendition.format]}`;
  return path.join(path.dirname(file), "renditions", rendition.name, name);
}

/** A fingerprint of what a rendition is made to: a changed setting makes it again. */
export function renditionSpec(rendition: Rendition, prompt: boolean): string {
  const { name, width, height, fit, format, quality = null, position = "attention" } = rendition;
  const text = JSON.stringify([name, width, height, fit, format, quality, position, prompt]);
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Makes `rendition` of `file` (a picture or a clip) and returns its record. */
export async function makeRendition(
  file: string,
  clip: boolean,
  rendition: Rendition,
  marking: Marking,
  outputDir: string,
  files: FileWrites,
): Promise<RenditionRecord> {
  const target = renditionPath(file, rendition);
  await mkdir(path.dirname(target), { recursive: true });
  await mkdir(partialDir(outputDir), { recursive: true });
  const made = clip
    ? await renderClip(file, target, rendition, marking, outputDir)
    : await renderPicture(file, target, rendition, marking, outputDir, files);
  return {
    name: rendition.name,
    file: path.relative(path.dirname(file), target).split(path.sep).join("/"),
    ...made,
    spec: renditionSpec(rendition, marking.prompt !== null),
  };
}

type Made = Pick<RenditionRecord, "width" | "height" | "bytes" | "sha256">;

async function renderPicture(
  file: string,
  target: string,
  rendition: Rendition,
  marking: Marking,
  outputDir: string,
  files: FileWrites,
): Promise<Made> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(file)
    .autoOrient()
    .resize(rendition.width, rendition.height, {
      fit: rendition.fit,
      position: rendition.position === "centre" ? "centre" : sharp.strategy.attention,
      background: { r: 0, g: 0, b: 0, alpha: rendition.format === "jpeg" ? 1 : 0 },
    })
    .toFormat(rendition.format as "jpeg", { quality: rendition.quality })
    .withXmp(xmpPacket(marking))
    .toBuffer({ resolveWithObject: true });
  await files.whole(reviewPartial(outputDir, target), target, data);
  const sha256 = createHash("sha256").update(data).digest("hex");
  return { width: info.width, height: info.height, bytes: data.length, sha256 };
}

/** The scale (and crop or pad) that brings a clip to the rendition's size. */
function clipFilter({ width: w, height: h, fit }: Rendition): string {
  if (fit === "cover")
    return `scale=${w}:${h}:force_original_aspect_ratio=increase,crop=${w}:${h},setsar=1`;
  if (fit === "contain")
    return `scale=${w}:${h}:force_original_aspect_ratio=decrease,pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2,setsar=1`;
  // H.264 in yuv420p wants even sides.
  return `scale=${w}:${h}:force_original_aspect_ratio=decrease,scale=trunc(iw/2)*2:trunc(ih/2)*2,setsar=1`;
}

async function renderClip(
  file: string,
  target: string,
  rendition: Rendition,
  marking: Marking,
  outputDir: string,
): Promise<Made> {
  const partial = reviewPartial(outputDir, target);
  // quality 1–100 as for pictures, mapped onto x264's CRF (51 worst … 0 lossless); default 20.
  const crf =
    rendition.quality === undefined ? 20 : Math.round((51 * (100 - rendition.quality)) / 100);
  try {
    // The source's frame rate is kept: no -r, and no frame-rate filter.
    await runFfmpeg([
      ...["-i", file, "-map", "0:v:0", "-map", "0:a:0?", "-map_metadata", "-1"],
      ...["-vf", clipFilter(rendition), "-c:v", "libx264", "-crf", String(crf)],
      ...["-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k"],
      ...mp4Metadata(marking),
      ...["-movflags", "+faststart+use_metadata_tags", "-f", "mp4", "-y", partial],
    ]);
    const probe = await probeMedia(partial);
    const video = probe.streams.find((stream) => stream.type === "video");
    const sha256 = await hashFile(partial);
    const { size } = await stat(partial);
    await rename(partial, target);
    return { width: video?.width ?? 0, height: video?.height ?? 0, bytes: size, sha256 };
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
