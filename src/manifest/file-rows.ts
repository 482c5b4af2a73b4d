import { statSync } from "node:fs";
import path from "node:path";
import { globSync } from "tinyglobby";
import { coversFolder, digestGatedSync } from "../core/file-gate.js";
import { isRecord } from "../core/values.js";
import type { Reporter } from "./report.js";
import type { FileMedia, RowSet } from "./row-types.js";
import type { ManifestSource } from "./source.js";
import type { JobSpec } from "./types.js";

/**
 * `rows: { files: GLOB }`: one row per regular file the globs match, relative to the manifest's
 * folder and admitted by its file gate, in path order. Names starting with a dot are left out
 * and links are not followed, so a glob never leads out of the project through one.
 */

/** A file row's columns; `width` and `height` only a picture's, `duration` only a clip's. */
export const FILE_COLUMNS = [
  "file",
  "name",
  "stem",
  "ext",
  "folder",
  "bytes",
  "sha256",
  "width",
  "height",
  "duration",
] as const;

/** Extensions probed as pictures (with sharp) and as clips (with ffprobe). */
const PICTURE_EXTENSIONS = new Set([
  "jpg",
  "jpeg",
  "png",
  "webp",
  "gif",
  "bmp",
  "avif",
  "tif",
  "tiff",
]);
const CLIP_EXTENSIONS = new Set(["mp4", "mov", "m4v", "webm", "mkv", "avi"]);

/** A file a glob matched, admitted by the file gate. */
export interface MatchedFile {
  /** Relative to the manifest's folder, with forward slashes. */
  file: string;
  /** Its real path, links resolved: what its media facts are kept by. */
  real: string;
  bytes: number;
  sha256: string;
  /** The glob (its index among `files:`) that matched it first. */
  glob: number;
}

/** What the globs of one `files:` matched. */
export interface FileListing {
  files: MatchedFile[];
  /** Globs (by index) that match no file. */
  empty: number[];
  /** Globs (by index) whose folder lies outside the project and the allowed folders. */
  outside: number[];
  /** Files matched that the gate refused, with why (unreadable, say). */
  refused: { glob: number; problem: string }[];
}

const listings = new WeakMap<ManifestSource, Map<string, FileListing>>();

/** The globs of `rows: { files }` as written (one, or a list); undefined for other `rows:`. */
export function fileGlobsOf(raw: unknown): string[] | undefined {
  const files = isRecord(raw) ? raw.files : undefined;
  if (typeof files === "string") return files === "" ? undefined : [files];
  if (!Array.isArray(files) || files.length === 0) return undefined;
  return files.every((glob) => typeof glob === "string" && glob !== "") ? files : undefined;
}

/** The files `globs` match through the manifest's file gate; jobs that share globs list once. */
export function listFiles(source: ManifestSource, globs: readonly string[]): FileListing {
  const id = JSON.stringify(globs);
  const known = listings.get(source)?.get(id);
  if (known !== undefined) return known;
  const listing = matchFiles(source, globs);
  const bySource = listings.get(source) ?? new Map<string, FileListing>();
  listings.set(source, bySource.set(id, listing));
  return listing;
}

/** A matched file's kind, by its extension: what a stage that may run sharp or ffprobe probes. */
export function mediaKindOf(file: string): "picture" | "clip" | undefined {
  const ext = extensionOf(file);
  if (PICTURE_EXTENSIONS.has(ext)) return "picture";
  return CLIP_EXTENSIONS.has(ext) ? "clip" : undefined;
}

/** Every file the jobs' `rows: { files }` match whose media facts are not known yet. */
export function filesToProbe(source: ManifestSource): MatchedFile[] {
  const jobs = isRecord(source.value) && Array.isArray(source.value.jobs) ? source.value.jobs : [];
  const found = new Map<string, MatchedFile>();
  for (const job of jobs) {
    const globs = fileGlobsOf(isRecord(job) ? job.rows : undefined);
    if (globs === undefined) continue;
    for (const file of listFiles(source, globs).files)
      if (!source.fileMedia.has(file.real) && mediaKindOf(file.file) !== undefined)
        found.set(file.real, file);
  }
  return [...found.values()];
}

/**
 * The files `patterns` match below `dir`, relative to it, less those `!` patterns of `globs`
 * leave out: names starting with a dot, folders and links are never matched. How `rows:
 * { files }` and `gwrun watch` list a folder alike.
 */
export function filesMatching(
  dir: string,
  patterns: string | readonly string[],
  globs: readonly string[],
): string[] {
  return globSync(typeof patterns === "string" ? patterns : [...patterns], {
    cwd: dir,
    ignore: globs.filter((glob) => glob.startsWith("!")).map((glob) => glob.slice(1)),
    dot: false,
    followSymbolicLinks: false,
    expandDirectories: false,
    onlyFiles: true,
  });
}

function matchFiles(source: ManifestSource, globs: readonly string[]): FileListing {
  const listing: FileListing = { files: [], empty: [], outside: [], refused: [] };
  const found = new Map<string, number>();
  globs.forEach((glob, index) => {
    if (glob.startsWith("!")) return;
    if (!coversFolder(source.gate, path.resolve(source.dir, staticBase(glob)))) {
      listing.outside.push(index);
      return;
    }
    const matched = filesMatching(source.dir, glob, globs);
    if (matched.length === 0) listing.empty.push(index);
    for (const file of matched) if (!found.has(file)) found.set(file, index);
  });
  // Sorted by code unit, so the order is the same on every machine and locale.
  for (const file of [...found.keys()].sort()) {
    const glob = found.get(file) as number;
    const digest = digestGatedSync(source.gate, path.resolve(source.dir, file), file);
    if (!("problem" in digest)) listing.files.push({ file, glob, ...digest });
    // A folder or FIFO named like a file, or one gone since it was listed, is no row.
    else if (digest.kind !== "not-a-file" && digest.kind !== "missing")
      listing.refused.push({ glob, problem: digest.problem });
  }
  return listing;
}

const GLOB_MAGIC = /[*?[\]{}()!+@]/;

/** The folder a glob searches from: its leading parts that hold no pattern. */
export function staticBase(glob: string): string {
  const fixed: string[] = [];
  for (const part of glob.split("/").slice(0, -1)) {
    if (GLOB_MAGIC.test(part)) break;
    fixed.push(part);
  }
  return fixed.length === 0 ? "." : fixed.join("/") || "/";
}

function extensionOf(file: string): string {
  return path.posix.extname(file).slice(1).toLowerCase();
}

/** The row of a matched file, with what was probed of it. */
function fileRow(matched: MatchedFile, media: FileMedia | undefined): Record<string, unknown> {
  const name = path.posix.basename(matched.file);
  const dot = path.posix.extname(name);
  const folder = path.posix.dirname(matched.file);
  return {
    file: matched.file,
    name,
    stem: dot === "" ? name : name.slice(0, -dot.length),
    ext: extensionOf(name),
    folder: folder === "." ? "" : folder,
    bytes: matched.bytes,
    sha256: matched.sha256,
    ...media,
  };
}

/**
 * The rows of `rows: { files }`; a glob that reaches outside the project, or globs that match
 * nothing, are reported at the glob.
 */
export function readFileRows(
  globs: readonly string[],
  raw: Record<string, unknown>,
  spec: Pick<JobSpec, "index">,
  report: Reporter,
): RowSet {
  const { source } = report;
  const listing = listFiles(source, globs);
  const at = (glob: number) =>
    Array.isArray(raw.files) ? ["rows", "files", glob] : ["rows", "files"];
  const job = ["jobs", spec.index];
  for (const index of listing.outside)
    report.at(
      at(index),
      "outside-project",
      `files: ${globs[index]} searches outside the project (${source.gate.folders[0] ?? ""}): files are read only inside it; name its folder in files: { allow: [...] } to read from it`,
      {},
      job,
    );
  for (const { glob, problem } of listing.refused)
    report.at(
      at(glob),
      "rows-file",
      `files: ${problem}; it makes no row`,
      { severity: "warning" },
      job,
    );
  const { files } = listing;
  if (globs.every((glob) => glob.startsWith("!")))
    report.at(
      ["rows", "files"],
      "no-files",
      "files: every pattern starts with !, which only leaves files out: name the files to take first",
      {},
      job,
    );
  for (const index of listing.empty) {
    const glob = globs[index] as string;
    const searched = path.resolve(source.dir, staticBase(glob));
    const folder = statSync(path.resolve(source.dir, glob), { throwIfNoEntry: false });
    report.at(
      at(index),
      "no-files",
      folder?.isDirectory() === true
        ? `files: ${glob} is a folder: name its files with a pattern, e.g. ${glob.replace(/\/*$/, "/*")}`
        : `files: no file matches ${glob} (searched ${searched}; names starting with a dot, folders and links are left out): check the pattern`,
      { severity: files.length === 0 ? "error" : "warning" },
      job,
    );
  }
  const rowAt = (record: number) => {
    const matched = files[record] as MatchedFile;
    return fileRow(matched, source.fileMedia.get(matched.real));
  };
  return {
    file: undefined,
    written: `files ${globs.join(", ")}`,
    text: undefined,
    textCells: false,
    columns: [...FILE_COLUMNS],
    size: files.length,
    row: rowAt,
    record: (row) => row,
    cellAt: () => ({ line: 1, col: 1 }),
    readable: files.length > 0,
    files: {
      name: (record) => files[record]?.file ?? "",
      at: (record) => at(files[record]?.glob ?? 0),
    },
  };
}
