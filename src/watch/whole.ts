import path from "node:path";
import { coerceError } from "../core/errors.js";
import { admit, type FileGate, readGated } from "../core/file-gate.js";
import { mediaKindOf } from "../manifest/index.js";
import { loadSharp, probeMedia } from "../media/index.js";

/**
 * The format check of a file at rest: a copy that stalled, or a writer that pauses, leaves a
 * file whose size stays put while it is not whole yet. A header alone is not enough (a half
 * picture has a whole one): a picture must decode to its last row, a PNG hold every chunk to
 * its IEND, a clip be one ffprobe reads. Files that are neither are whole when still.
 */

// The most a picture input may be read at (families/local-images.ts); a larger one is whole
// as far as watching goes, and the manifest's own check refuses it.
const MAX_PICTURE_BYTES = 100 * 1024 * 1024;

/**
 * Why the file at `file` (relative to `dir`, read through `gate`) is not whole yet; undefined
 * when it is.
 */
export async function notWholeYet(
  gate: FileGate,
  dir: string,
  file: string,
): Promise<string | undefined> {
  const kind = mediaKindOf(file);
  if (kind === undefined) return undefined;
  const admitted = admit(gate, path.resolve(dir, file), file);
  if ("problem" in admitted) return admitted.problem;
  if (kind === "clip") {
    try {
      await probeMedia(admitted.real);
      return undefined;
    } catch (error) {
      return `ffprobe cannot read it yet (${firstLine(error)})`;
    }
  }
  const read = await readGated(gate, admitted.real, MAX_PICTURE_BYTES, file);
  if ("problem" in read) return read.kind === "too-large" ? undefined : read.problem;
  const { pngStructure } = await import("../postprocess/index.js");
  const png = pngStructure(read.bytes);
  if (png !== undefined)
    return png.broken === undefined ? undefined : `a PNG cut short: ${png.broken}`;
  const sharp = await loadSharp();
  try {
    // "truncated": a picture cut short fails; one a decoder merely warns about passes.
    await sharp(read.bytes, { failOn: "truncated" }).resize(32).raw().toBuffer();
    return undefined;
  } catch (error) {
    return `sharp cannot decode it whole yet (${firstLine(error)})`;
  }
}

function firstLine(error: unknown): string {
  return coerceError(error).message.split("\n")[0] ?? "";
}
