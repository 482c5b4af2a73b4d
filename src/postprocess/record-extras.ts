import { existsSync } from "node:fs";
import path from "node:path";
import { readRecordedSync, TEXT_FILE_MAX_BYTES } from "../core/file-gate.js";
import type { RenditionRecord } from "./renditions.js";
import type { ReviewRecord } from "./review-record.js";

/** A rendition as `results.jsonl` lists it: `file` relative to the run's output folder. */
export type ListedRendition = Omit<RenditionRecord, "spec">;

/** A record with what this adds (kept out of `ReviewRecord`'s own file). */
export type RecordWithExtras = ReviewRecord & {
  /** Whether the original carries a C2PA manifest (pictures and clips checked by this version). */
  c2pa?: boolean;
  /** `output.renditions` made of it, paths relative to the run's output folder. */
  renditions?: ListedRendition[];
};

/** Folders seen to hold a `renditions/` folder, or not: one look per job folder. */
const folders = new Map<string, boolean>();

/**
 * An output's record with what its sidecar adds: `c2pa` (from its checks) and, for a job
 * folder that has renditions, the renditions its sidecar lists. Other records are unchanged.
 */
export function withOutputExtras(
  outputDir: string,
  record: ReviewRecord,
  file: string | null,
): RecordWithExtras {
  const c2pa = record.checks.c2pa;
  const withC2pa: RecordWithExtras = typeof c2pa === "boolean" ? { ...record, c2pa } : record;
  if (file === null) return withC2pa;
  const folder = path.dirname(file);
  let has = folders.get(folder);
  if (has === undefined) {
    has = existsSync(path.join(folder, "renditions"));
    // Only positives are kept: a later run may add the folder.
    if (has) folders.set(folder, has);
  }
  if (!has) return withC2pa;
  const renditions = sidecarRenditions(file);
  if (renditions === null) return withC2pa;
  return {
    ...withC2pa,
    renditions: renditions.map(({ spec: _spec, ...listed }) => ({
      ...listed,
      file: path.relative(outputDir, path.join(folder, listed.file)).split(path.sep).join("/"),
    })),
  };
}

function sidecarRenditions(file: string): RenditionRecord[] | null {
  const { renditions } = readSidecar(`${file}.json`);
  return Array.isArray(renditions) ? (renditions as RenditionRecord[]) : null;
}

/** An output's sidecar as an object, read through the file gate; {} when absent or unreadable. */
export function readSidecar(file: string): Record<string, unknown> {
  const read = readRecordedSync(file, TEXT_FILE_MAX_BYTES);
  if ("problem" in read) return {};
  try {
    const parsed: unknown = JSON.parse(read.bytes.toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
