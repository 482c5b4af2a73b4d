import path from "node:path";
import { recordedFileRefusal } from "../core/file-gate.js";
import { fileMatches } from "../core/output-files.js";
import { isBelow } from "../core/safe-files.js";
import { readSidecar } from "../postprocess/index.js";
import type { Store } from "../store/index.js";
import { type RecordedFile, recordedFile, typeByExtension } from "./files.js";

/**
 * An output's rendition, asked for by the output's id and the rendition's name: its file is
 * the one the output's sidecar lists under that name, never a path from the URL, and is served
 * only from inside the output's folder, through the file gate, while it still holds the bytes
 * recorded for it (a rendition is not in the store, so its sidecar entry is all that vouches).
 */

/** A rendition's name as `output.renditions` allows it (renditions-schema.ts). */
const RENDITION_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The file and type of rendition `name` of an output; undefined when none may be served. */
export async function recordedRendition(
  store: Store,
  key: string,
  index: string,
  name: string,
  roots: readonly string[],
): Promise<RecordedFile | undefined> {
  if (!RENDITION_NAME.test(name)) return undefined;
  const output = await recordedFile(store, key, index, "file", roots);
  if (output === undefined) return undefined;
  const listed = listedRendition(readSidecar(`${output.path}.json`), name);
  if (listed === undefined) return undefined;
  const folder = path.dirname(output.path);
  const file = path.resolve(folder, listed.file);
  if (!isBelow(folder, file) || recordedFileRefusal(file, roots) !== undefined) return undefined;
  if (!(await fileMatches(file, listed.bytes, listed.sha256))) return undefined;
  return { path: file, type: typeByExtension(file), roots };
}

/** What a sidecar lists of the rendition `name`: undefined when absent or not well formed. */
function listedRendition(
  sidecar: Record<string, unknown>,
  name: string,
): { file: string; bytes: number; sha256: string } | undefined {
  const renditions = Array.isArray(sidecar.renditions) ? (sidecar.renditions as unknown[]) : [];
  for (const each of renditions) {
    if (typeof each !== "object" || each === null) continue;
    const { name: named, file, bytes, sha256 } = each as Record<string, unknown>;
    if (named !== name) continue;
    return typeof file === "string" && typeof bytes === "number" && typeof sha256 === "string"
      ? { file, bytes, sha256 }
      : undefined;
  }
  return undefined;
}
