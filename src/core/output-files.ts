import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import path from "node:path";
import { openRecorded } from "./file-gate.js";
import type { FileWrites } from "./file-writes.js";
import { ensureDir, LONGEST_PARTIAL_TAIL, partialFile } from "./fs.js";
import { resolveFromCwd } from "./io.js";

/**
 * Where outputs go and how they are checked. Paths are built only from job labels and
 * indexes (never from URLs or response text) and stay inside the run's output folder.
 */

const EXTENSIONS: Readonly<Record<string, string>> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
  "image/gif": "gif",
  "image/bmp": "bmp",
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "video/webm": "webm",
  "text/plain": "txt",
};

/** Review images (thumbnails, clip posters) go in `<dir>/.thumbs/<job id>/`. */
export const THUMBS_DIR = ".thumbs";

/** Partial files, before they are renamed into place: `<dir>/../.gwrun-partial/`. */
const PARTIAL_DIR = ".gwrun-partial";

/** What a take adds to a label: `-t<take>`, allowing for 999 takes. */
export const TAKE_TAIL = "-t999";

/** Versions a file name may take (`-v2` … `-v999`) before gwrun gives up on a name. */
export const MOST_VERSIONS = 999;

/**
 * The longest tail gwrun appends to an output's name (`<label>[-<n>]`) in a file it writes for
 * it: a take and a version (`-t999-v999`), then a clip's poster (`.poster.jpg`) as written
 * first, a partial file keeping its extension. Longer than any other: a partial sidecar
 * (`.webm.json` and the partial tail), a thumbnail (`.avif`).
 */
export const LONGEST_NAME_TAIL = `${TAKE_TAIL}-v${MOST_VERSIONS}.poster.jpg${LONGEST_PARTIAL_TAIL}.jpg`;

/** File system limits (Linux): bytes in one name, and in a whole path (PATH_MAX less its NUL). */
export const NAME_MAX_BYTES = 255;
export const PATH_MAX_BYTES = 4095;

/**
 * The longest name and path, in UTF-8 bytes, of any file gwrun writes for an output named
 * `name` (`<label>[-<n>]`) of job `jobId` in `outputDir` (absolute): its review images and
 * partial files included.
 */
export function longestOutputPath(
  outputDir: string,
  jobId: string,
  name: string,
): { name: number; path: number } {
  const nameBytes = Buffer.byteLength(name) + LONGEST_NAME_TAIL.length;
  // `<dir>/.thumbs/<job id>/` and `<dir>/../.gwrun-partial/`, `outputDir` being absolute.
  const thumbs = Buffer.byteLength(outputDir) + THUMBS_DIR.length + Buffer.byteLength(jobId) + 3;
  const partials = Buffer.byteLength(path.dirname(outputDir)) + PARTIAL_DIR.length + 2;
  return { name: nameBytes, path: Math.max(thumbs, partials) + nameBytes };
}

/**
 * `<dir>/<job id>/<label>[-<n>][-v<version>].<ext>`; the extension comes from the served
 * Content-Type. Version 1 has no suffix; a later one names a file whose first name another
 * output holds.
 */
export function outputPath(
  dir: string,
  jobId: string,
  label: string,
  index: number,
  count: number,
  contentType: string,
  version = 1,
): string {
  const ext = EXTENSIONS[contentType] ?? "bin";
  const name = count > 1 ? `${label}-${index + 1}` : label;
  return path.join(dir, jobId, `${name}${version > 1 ? `-v${version}` : ""}.${ext}`);
}

/**
 * The provenance record beside an output's file: `<file>.json`. A text answer's is one for
 * all its choices, beside the first by its name less the choice number (`<label>.json` for
 * `<label>.txt`, or for `<label>-1.txt` of several); a later choice has none of its own.
 */
export function sidecarPath(
  file: string,
  output: { idx: number; count: number; contentType: string | null },
): string | null {
  if (output.contentType?.startsWith("text/") !== true || !file.endsWith(".txt"))
    return `${file}.json`;
  if (output.idx > 0) return null;
  const stem = file.slice(0, -".txt".length);
  return `${output.count > 1 ? stem.replace(/-1(?=(-v\d+)?$)/, "") : stem}.json`;
}

/** `<dir>/.thumbs/<job>/<output file's name less its extension><suffix>`. */
export function reviewPath(outputDir: string, jobId: string, file: string, suffix: string): string {
  const stem = path.basename(file, path.extname(file));
  return path.join(outputDir, THUMBS_DIR, jobId, `${stem}${suffix}`);
}

/** The folder for partial downloads: beside the output folder, so nothing partial shows in it. */
export function partialDir(outputDir: string): string {
  return path.join(path.dirname(resolveFromCwd(outputDir)), PARTIAL_DIR);
}

/** Hex sha256 of a recorded file, streamed; throws when it is gone or not the file (a link). */
export async function hashFile(file: string): Promise<string> {
  const opened = await openRecorded(file);
  if ("problem" in opened) throw Object.assign(new Error(opened.problem), { refused: opened.kind });
  const hash = createHash("sha256");
  try {
    for await (const chunk of opened.handle.createReadStream({ autoClose: false }))
      hash.update(chunk as Buffer);
  } finally {
    await opened.handle.close();
  }
  return hash.digest("hex");
}

/** Whether `file` is there with these bytes and this hash. */
export async function fileMatches(
  file: string | null,
  bytes: number | null,
  sha256: string | null,
): Promise<boolean> {
  if (file === null || sha256 === null) return false;
  try {
    const info = await stat(file);
    if (bytes !== null && info.size !== bytes) return false;
  } catch {
    return false;
  }
  return (await hashFile(file)) === sha256;
}

/**
 * Writes a small file (a sidecar, an answer) whole or not at all: to a partial file first, then
 * renamed into place, through the run's `files` (`file-writes.ts`).
 */
export async function writeWhole(
  file: string,
  content: string,
  tempDir: string,
  files: FileWrites,
): Promise<void> {
  await ensureDir(path.dirname(file));
  await ensureDir(tempDir);
  await files.whole(partialFile(tempDir, file), file, content);
}
