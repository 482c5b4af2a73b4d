import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { partialFile } from "../core/fs.js";
import { partialDir, THUMBS_DIR } from "../core/output-files.js";
import { extractFrame, loadSharp } from "../media/index.js";

/**
 * Review images of a run: thumbnails and clip posters in `<output dir>/.thumbs/<job id>/`, named
 * after the output's own file (so from its label), never after a URL.
 */
export { THUMBS_DIR };

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

/** `<dir>/.thumbs/<job>/<output name><suffix>`. */
function reviewPath(outputDir: string, jobId: string, file: string, suffix: string): string {
  const stem = path.basename(file, path.extname(file));
  return path.join(outputDir, THUMBS_DIR, jobId, `${stem}${suffix}`);
}

/**
 * Where a review image is written before it is renamed into place: among the run's partial
 * downloads, so the next run sweeps it if this process is killed. It keeps the target's
 * extension, which tells sharp and ffmpeg the format.
 */
export function reviewPartial(outputDir: string, target: string): string {
  return `${partialFile(partialDir(outputDir), target)}${path.extname(target)}`;
}

/** A file appears whole or not at all: written among the partials, then renamed. */
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

/** A thumbnail `settings.width` pixels wide at most (never enlarged); returns its path. */
export async function makeThumbnail(
  source: string,
  outputDir: string,
  jobId: string,
  file: string,
  settings: ThumbnailSettings,
): Promise<string> {
  const target = reviewPath(outputDir, jobId, file, `.${EXTENSION[settings.format]}`);
  await writeInPlace(outputDir, target, async (partial) => {
    const sharp = await loadSharp();
    await sharp(source)
      .resize({ width: settings.width, withoutEnlargement: true })
      .toFormat(settings.format)
      .toFile(partial);
  });
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
