import { createHash } from "node:crypto";
import path from "node:path";
import type { Readable } from "node:stream";
import { openGated, recordedFiles } from "../core/file-gate.js";
import { sidecarPath } from "../core/output-files.js";
import { isBelow } from "../core/safe-files.js";
import type { PublishTarget } from "../manifest/index.js";
import { readSidecar } from "../postprocess/index.js";
import type { OutputRow, PublishedPart } from "../store/index.js";

/**
 * The objects a done output is published as: its file, its review images, its renditions and
 * its provenance sidecar, each keyed by its place in the output folder under the target's
 * prefix, so the bucket holds the folder as it is on disk (`results.jsonl`, the gallery and
 * the sidecar link to them).
 */

export interface OutputObject {
  part: PublishedPart;
  /** The local file; it may be gone (a folder that is not this host's). */
  file: string;
  /** The key under a target's prefix (the folder's relative path, with `/`). */
  relative: string;
  /** The sha256 the store or sidecar records for it: other bytes are not published. */
  sha256?: string;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".json": "application/json",
  ".jsonl": "application/x-ndjson",
  ".html": "text/html; charset=utf-8",
  ".webp": "image/webp",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".avif": "image/avif",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * The objects of `output` (one of `count` of its task) in `outputDir`; none for a file
 * outside it. Its renditions come before the sidecar that lists them.
 */
export function objectsOf(output: OutputRow, count: number, outputDir: string): OutputObject[] {
  if (output.path === null || !isBelow(outputDir, output.path)) return [];
  const record = { idx: output.idx, count, contentType: output.content_type };
  const sidecar = sidecarPath(output.path, record);
  return [
    ...inFolder(outputDir, "file", output.path, output.sha256 ?? undefined),
    ...inFolder(outputDir, "thumbnail", output.thumbnail),
    ...inFolder(outputDir, "poster", output.poster),
    ...(sidecar === null ? [] : renditionObjects(output.path, sidecar, outputDir)),
    ...inFolder(outputDir, "sidecar", sidecar),
  ];
}

/** The renditions an output's sidecar lists, each at its file relative to the output's folder. */
function renditionObjects(outputFile: string, sidecar: string, outputDir: string): OutputObject[] {
  const { renditions } = readSidecar(sidecar);
  if (!Array.isArray(renditions)) return [];
  return renditions.flatMap((listed: unknown) => {
    const { name, file, sha256 } = (listed ?? {}) as Record<string, unknown>;
    if (typeof name !== "string" || typeof file !== "string" || typeof sha256 !== "string")
      return [];
    const place = path.join(path.dirname(outputFile), file);
    return inFolder(outputDir, `rendition:${name}`, place, sha256);
  });
}

/** One object, when `file` is inside `outputDir` (a recorded path could point anywhere). */
function inFolder(
  outputDir: string,
  part: PublishedPart,
  file: string | null,
  sha256?: string,
): OutputObject[] {
  if (file === null || !isBelow(outputDir, file)) return [];
  return [{ part, file, relative: relativeKey(outputDir, file), sha256 }];
}

/** A file's key relative to the folder: its path there, with `/` between the parts. */
export function relativeKey(outputDir: string, file: string): string {
  return path.relative(outputDir, file).split(path.sep).join("/");
}

export function objectKey(target: PublishTarget, relative: string): string {
  return target.prefix === "" ? relative : `${target.prefix}/${relative}`;
}

export function contentTypeOf(file: string, known?: string | null): string {
  return known ?? CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/**
 * A recorded file's size and sha256, read through the gate of `outputDir` (a link put in its
 * place, or anything but a regular file, is refused); undefined when it is not on disk. With
 * `known` (what a run hashed as it downloaded the file moments ago), a file of that size is
 * not read again.
 */
export async function fileFacts(
  outputDir: string,
  file: string,
  known?: { bytes: number; sha256: string },
): Promise<{ bytes: number; sha256: string } | { refused: string } | undefined> {
  const opened = await openGated(recordedFiles([outputDir]), file);
  if ("problem" in opened)
    return opened.kind === "missing" ? undefined : { refused: opened.problem };
  try {
    if (known !== undefined && known.bytes === opened.size) return known;
    const hash = createHash("sha256");
    for await (const chunk of opened.handle.createReadStream({ autoClose: false }))
      hash.update(chunk as Buffer);
    return { bytes: opened.size, sha256: hash.digest("hex") };
  } finally {
    await opened.handle.close();
  }
}

/** A recorded file of `outputDir` opened through its gate, as an upload's body. */
export async function bodyOf(outputDir: string, file: string): Promise<Readable> {
  const opened = await openGated(recordedFiles([outputDir]), file);
  if ("problem" in opened) throw new Error(opened.problem);
  return opened.handle.createReadStream();
}
