import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import type { FileWrites } from "../core/file-writes.js";
import { ensureDir, partialFile } from "../core/fs.js";
import { partialDir, reviewPath } from "../core/output-files.js";
import { extractFrame, loadSharp } from "../media/index.js";

/**
 * Review images of a run: thumbnails and clip posters in `<output dir>/.thumbs/<job id>/`, named
 * after the output's own file (so from its label), never after a URL (`reviewPath`).
 */

export interface ThumbnailSettings {
  width: number;
  format: "webp" | "jpeg" | "png" | "avif";
}

const EXTENSION: Readonly<Record<ThumbnailSettings["format"], string>> = {
  webp: "webp",
  jpeg: "jpg",
  png: "png",
  avif: "avif",
};

/**
 * Where a review image is written before it is renamed into place: among the run's partial
 * downloads, so the next run sweeps it if this process is killed. It keeps the target's
 * extension, which tells sharp and ffmpeg the format.
 */
export function reviewPartial(outputDir: string, target: string): string {
  return `${partialFile(partialDir(outputDir), target)}${path.extname(target)}`;
}

/** A file another program writes appears whole or not at all: among the partials, then renamed. */
async function writeInPlace(
  outputDir: string,
  target: string,
  write: (partial: string) => Promise<void>,
): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  await mkdir(partialDir(outputDir), { recursive: true });
  const partial = reviewPartial(outputDir, target);
  try {
    await write(partial);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/**
 * A thumbnail of `source` (the output `file`, or its clip's poster) `settings.width` pixels
 * wide at most (never enlarged), named after `file`; returns its path. Made in memory (a
 * thumbnail is small) and written through `files`, whole or not at all.
 */
export async function makeThumbnail(
  { source, file }: { source: string; file: string },
  outputDir: string,
  jobId: string,
  settings: ThumbnailSettings,
  files: FileWrites,
): Promise<string> {
  const target = reviewPath(outputDir, jobId, file, `.${EXTENSION[settings.format]}`);
  const sharp = await loadSharp();
  const image = await sharp(source)
    .resize({ width: settings.width, withoutEnlargement: true })
    .toFormat(settings.format)
    .toBuffer();
  await ensureDir(path.dirname(target));
  await ensureDir(partialDir(outputDir));
  await files.whole(reviewPartial(outputDir, target), target, image);
  return target;
}

/** A clip's poster: the frame at `atSeconds`, as a JPEG at full size; returns its path. */
export async function makePoster(
  clip: string,
  outputDir: string,
  jobId: string,
  atSeconds: number,
): Promise<string> {
  const target = reviewPath(outputDir, jobId, clip, ".poster.jpg");
  await writeInPlace(outputDir, target, (partial) => extractFrame(clip, partial, atSeconds));
  return target;
}
