import { lstatSync, realpathSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import {
  digestBounded,
  type GateRead,
  notAFile,
  openRegular,
  type ReadAt,
  type Refused,
  readBounded,
  readOpened,
  refusalError,
  refused,
  tooLarge,
  unreadable,
  walkRegularSync,
} from "./bounded-read.js";
import { resolveFromCwd } from "./io.js";
import { isBelow } from "./safe-files.js";

export type { GateRead, ReadAt, RefusalKind, Refused } from "./bounded-read.js";

/**
 * The file gate: every file gwrun reads that a manifest names (prompt and message files, rows,
 * local images and clips, a prices file) or that it sends or serves (publishing, the viewer,
 * exports, a dependant's input) is read here, and only if
 *
 * - its real path, links resolved, lies inside one of the gate's folders (the project, the
 *   folders a manifest allows with `files: { allow }`, a run's output folder);
 * - it is a regular file: a device (`/dev/zero`), a FIFO or a folder is refused before it is
 *   opened for long, so none can hang or fill memory;
 * - it holds at most the bytes asked for, read no further than that however the file grows.
 *
 * A refusal is a sentence that names the file and says what to do; nothing is thrown. gwrun's
 * own files (its package's SQL, pages and version, its private spool and cache) are read with
 * `readOwnFile`, which keeps the last two rules.
 */

/** What a file of text a manifest names may hold at most (a prompt, a prices table). */
export const TEXT_FILE_MAX_BYTES = 4 * 1024 * 1024;

/** What a data file of rows may hold at most. */
export const DATA_FILE_MAX_BYTES = 256 * 1024 * 1024;

/** The folders files are read from; each absolute, its links resolved once. */
export interface FileGate {
  readonly folders: readonly string[];
  /**
   * `inside`: a link is followed while it stays inside the folders (a manifest's files);
   * `refused`: a file gwrun recorded is never a link, so one found in its place is refused.
   */
  readonly links: "inside" | "refused";
}

/** A gate over `folders` (absolute or relative to the working folder; missing ones are kept). */
export function fileGate(
  folders: readonly string[],
  links: FileGate["links"] = "inside",
): FileGate {
  return { folders: [...new Set(folders.map(realFolder))], links };
}

/**
 * The gate of files gwrun recorded (outputs, review images, sidecars, a folder's record) in
 * `folders`: what it serves, publishes, exports or binds into a dependant.
 */
export function recordedFiles(folders: readonly string[]): FileGate {
  return fileGate(folders, "refused");
}

function realFolder(folder: string): string {
  try {
    return realpathSync.native(resolveFromCwd(folder));
  } catch {
    return resolveFromCwd(folder);
  }
}

/**
 * Why `file` may not be read through `gate`, or its real path and facts when it may; `name`
 * is how messages name it (default: the path).
 */
export function admit(
  gate: FileGate,
  file: string,
  name: string = file,
): { real: string; stat: Stats } | Refused {
  const where = resolveFromCwd(file);
  let real: string;
  try {
    real = realpathSync.native(where);
  } catch (error) {
    return unreadable(name, error);
  }
  if (gate.links === "refused" && lstatSafe(where)?.isSymbolicLink() === true)
    return refused(name, "outside", `${name} is a link, not the file gwrun recorded there`);
  const inside = gate.folders.some((folder) => real === folder || isBelow(folder, real));
  if (!inside) {
    const linked = lstatSafe(where)?.isSymbolicLink() === true;
    return refused(
      name,
      "outside",
      linked
        ? `${name} is a link to ${real}, outside the project: files are read only inside it`
        : `${name} lies outside the project (${gate.folders[0] ?? "none"}): name its folder in files: { allow: [...] } to read it`,
    );
  }
  const stat = lstatSafe(real);
  if (stat === undefined) return refused(name, "missing", `${name} is not on disk`);
  if (!stat.isFile()) return notAFile(name, stat);
  return { real, stat };
}

/** Whether `folder` (its links resolved; a missing one as written) lies inside the gate's folders. */
export function coversFolder(gate: FileGate, folder: string): boolean {
  const real = realFolder(folder);
  return gate.folders.some((inside) => real === inside || isBelow(inside, real));
}

/** The bytes of `file` through `gate`, at most `maxBytes` of them; `name` names it. */
export function readGatedSync(
  gate: FileGate,
  file: string,
  maxBytes: number,
  name: string = file,
): GateRead {
  const admitted = admit(gate, file, name);
  if ("problem" in admitted) return admitted;
  return readBounded(admitted.real, name, maxBytes);
}

/**
 * The size and sha256 (hex) of `file` through `gate`, read a chunk at a time (no bound: only
 * its digest is kept), with its real path; `name` names it.
 */
export function digestGatedSync(
  gate: FileGate,
  file: string,
  name: string = file,
): { real: string; bytes: number; sha256: string } | Refused {
  const admitted = admit(gate, file, name);
  if ("problem" in admitted) return admitted;
  const digest = digestBounded(admitted.real, name);
  return "problem" in digest ? digest : { real: admitted.real, ...digest };
}

/** `readGatedSync`, from a promise: the same checks, the same bound. */
export async function readGated(
  gate: FileGate,
  file: string,
  maxBytes: number,
  name: string = file,
): Promise<GateRead> {
  const admitted = admit(gate, file, name);
  if ("problem" in admitted) return admitted;
  return readOpened(await openRegular(admitted.real, name), name, maxBytes);
}

/** A file through `gate`, opened for a stream (served, uploaded, hashed); the caller closes it. */
export async function openGated(
  gate: FileGate,
  file: string,
): Promise<{ handle: FileHandle; size: number } | Refused> {
  const admitted = admit(gate, file);
  if ("problem" in admitted) return admitted;
  return openRegular(admitted.real, file);
}

/** The text of a file read: UTF-8, a byte-order mark left out. */
export function textOf(read: GateRead): { file: string; text: string } | Refused {
  if ("problem" in read) return read;
  return { file: read.file, text: read.bytes.toString("utf8").replace(/^\uFEFF/, "") };
}

/** What a manifest (or a request file) named on the command line may hold at most. */
export const MANIFEST_MAX_BYTES = 256 * 1024 * 1024;

/**
 * One of gwrun's own files — its package's (`new URL(…, import.meta.url)`), its private spool,
 * cache or marker, the user's own `~/.pgpass` — never a path a manifest gave: a regular file,
 * bounded. Throws with the reason when it cannot be read (`code` ENOENT when it is not there).
 */
export function readOwnFile(file: string | URL, maxBytes: number = TEXT_FILE_MAX_BYTES): Buffer {
  const name = file instanceof URL ? file.pathname : file;
  const read = readBounded(file instanceof URL ? name : resolveFromCwd(file), name, maxBytes);
  if ("problem" in read) throw refusalError(read);
  return read.bytes;
}

/**
 * A file the person named on the command line, or one of gwrun's own (see `readOwnFile`),
 * opened for a stream: a regular file; the caller closes it.
 */
export async function openNamedFile(file: string): Promise<{ handle: FileHandle; size: number }> {
  const opened = await openRegular(resolveFromCwd(file), file);
  if ("problem" in opened) throw refusalError(opened);
  return opened;
}

/**
 * A file the person named on the command line (a manifest, a request): anywhere they may
 * read, but a regular file and bounded, so `gwrun validate /dev/zero` cannot hang.
 */
export async function readNamedFile(
  file: string,
  maxBytes: number = MANIFEST_MAX_BYTES,
): Promise<string> {
  const opened = await openRegular(resolveFromCwd(file), file);
  if ("problem" in opened) throw refusalError(opened);
  try {
    if (opened.size > maxBytes) throw refusalError(tooLarge(file, maxBytes));
    const bytes = await opened.handle.readFile();
    if (bytes.length > maxBytes) throw refusalError(tooLarge(file, maxBytes));
    return bytes.toString("utf8");
  } finally {
    await opened.handle.close();
  }
}

/**
 * Why a recorded `file` may not be served, published or exported from `folders` (a link, not
 * a regular file, outside them, gone); undefined when it may.
 */
export function recordedFileRefusal(file: string, folders: readonly string[]): string | undefined {
  const admitted = admit(recordedFiles(folders), file);
  return "problem" in admitted ? admitted.problem : undefined;
}

/**
 * A file gwrun recorded (an output, a sidecar, a kept answer), read where it lies: a regular
 * file, not a link put in its place, at most `maxBytes`. It lies in its own folder, so only a
 * link in its place could lead out: opened without following one, it needs no other check
 * (a run checks every output so).
 */
export function readRecordedSync(file: string, maxBytes: number): GateRead {
  return readBounded(resolveFromCwd(file), file, maxBytes, "refused");
}

/** `readRecordedSync`, from a promise. */
export async function readRecorded(file: string, maxBytes: number): Promise<GateRead> {
  return readOpened(await openRegular(resolveFromCwd(file), file, "refused"), file, maxBytes);
}

/**
 * `use` given a reader of a file gwrun recorded and its size (see `readRecordedSync`): for
 * walking its structure a few bytes at a time, synchronously.
 */
export function walkRecordedSync<T>(
  file: string,
  use: (readAt: ReadAt, size: number) => T,
): T | Refused {
  return walkRegularSync(resolveFromCwd(file), file, "refused", use);
}

/** A file gwrun recorded, opened where it lies for a stream (see `readRecordedSync`). */
export function openRecorded(
  file: string,
): Promise<{ handle: FileHandle; size: number } | Refused> {
  return openRegular(resolveFromCwd(file), file, "refused");
}

function lstatSafe(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
