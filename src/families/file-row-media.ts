import { readGated } from "../core/file-gate.js";
import {
  type FileMedia,
  filesToProbe,
  type ManifestSource,
  type MatchedFile,
  mediaKindOf,
} from "../manifest/index.js";
import { probeMedia } from "../media/index.js";
import { imageSize } from "./image-rules.js";
import { MAX_LOCAL_IMAGE_BYTES } from "./local-images.js";

/**
 * What the rows of `rows: { files }` tell of pictures and clips — a picture's width and height
 * (sharp reads its header), a clip's duration (ffprobe) — probed before the jobs are expanded:
 * the manifest stage runs neither. A file neither can read has no such columns.
 */

// Files read or probed at once: each clip is an ffprobe process.
const AT_ONCE = 8;

/** Probes each picture and clip the manifest's `rows: { files }` match, into `source.fileMedia`. */
export async function probeFileRows(source: ManifestSource): Promise<void> {
  const files = filesToProbe(source);
  let next = 0;
  const probeNext = async (): Promise<void> => {
    for (let at = next++; at < files.length; at = next++) {
      const file = files[at] as MatchedFile;
      source.fileMedia.set(file.real, await mediaOf(source, file));
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, files.length) }, probeNext));
}

async function mediaOf(source: ManifestSource, file: MatchedFile): Promise<FileMedia> {
  if (mediaKindOf(file.file) === "picture") {
    const read = await readGated(source.gate, file.real, MAX_LOCAL_IMAGE_BYTES, file.file);
    if ("problem" in read) return {};
    const size = await imageSize(read.bytes);
    return size === undefined ? {} : { width: size.width, height: size.height };
  }
  try {
    const probe = await probeMedia(file.real);
    return probe.durationSeconds === null ? {} : { duration: probe.durationSeconds };
  } catch {
    // No ffprobe, or not a clip it reads: a job reading {{row.duration}} leaves the file out.
    return {};
  }
}
