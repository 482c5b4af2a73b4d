import { randomUUID } from "node:crypto";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { extractFrame } from "../media/index.js";

/**
 * Review images of a run: thumbnails and clip posters in `<output dir>/.thumbs/<job id>/`, named
 * after the output's own file (so from its label), never after a URL.
 */
export const THUMBS_DIR = ".thumbs";

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

/** A file appears whole or not at all: written beside its place, then renamed. */
async function writeInPlace(
  target: string,
  write: (partial: string) => Promise<void>,
): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const partial = path.join(
    path.dirname(target),
    `.${randomUUID().slice(0, 8)}.partial${path.extname(target)}`,
  );
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
  await writeInPlace(target, async (partial) => {
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
  await writeInPlace(target, (partial) => extractFrame(clip, partial, atSeconds));
  return target;
}
