import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
} from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import path from "node:path";
import { ErrorCode, GwError } from "./errors.js";
import { isBelow } from "./safe-files.js";

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

const MB = 1024 * 1024;

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
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** Why a file was refused: not there, outside the gate's folders, not a file, too large. */
export type RefusalKind = "missing" | "outside" | "not-a-file" | "too-large" | "unreadable";

/** A file refused, and why: a sentence that names it as the caller named it. */
export interface Refused {
  file: string;
  problem: string;
  kind: RefusalKind;
}

/** A file read, or why it was not. */
export type GateRead = { file: string; bytes: Buffer } | Refused;

/**
 * Why `file` may not be read through `gate`, or its real path and facts when it may; `name`
 * is how messages name it (default: the path).
 */
export function admit(
  gate: FileGate,
  file: string,
  name: string = file,
): { real: string; stat: Stats } | Refused {
  let real: string;
  try {
    real = realpathSync(file);
  } catch (error) {
    return unreadable(name, error);
  }
  if (gate.links === "refused" && lstatSafe(file)?.isSymbolicLink() === true)
    return refused(name, "outside", `${name} is a link, not the file gwrun recorded there`);
  const inside = gate.folders.some((folder) => real === folder || isBelow(folder, real));
  if (!inside) {
    const linked = lstatSafe(file)?.isSymbolicLink() === true;
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

/** `readGatedSync`, from a promise: the same checks, the same bound. */
export async function readGated(
  gate: FileGate,
  file: string,
  maxBytes: number,
  name: string = file,
): Promise<GateRead> {
  const admitted = admit(gate, file, name);
  if ("problem" in admitted) return admitted;
  const opened = await openRegular(admitted.real, name);
  if ("problem" in opened) return opened;
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const chunk = Buffer.alloc(Math.min(MB, maxBytes + 1 - total));
      const { bytesRead } = await opened.handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    if (total > maxBytes) return tooLarge(name, maxBytes);
    return { file: name, bytes: Buffer.concat(chunks, total) };
  } finally {
    await opened.handle.close();
  }
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
  const read = readBounded(name, name, maxBytes);
  if ("problem" in read) throw refusalError(read);
  return read.bytes;
}

/**
 * A file the person named on the command line, or one of gwrun's own (see `readOwnFile`),
 * opened for a stream: a regular file; the caller closes it.
 */
export async function openNamedFile(file: string): Promise<{ handle: FileHandle; size: number }> {
  const opened = await openRegular(file, file);
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
  const opened = await openRegular(file, file);
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
 * A refusal as an error: a missing file as Node's own (`code` ENOENT, its path), anything else
 * as the person's mistake, saying what is wrong with the file.
 */
function refusalError(refusal: Refused): Error {
  if (refusal.kind !== "missing") return new GwError(ErrorCode.Usage, refusal.problem);
  return Object.assign(new Error(refusal.problem), {
    code: "ENOENT",
    syscall: "open",
    path: refusal.file,
  });
}

function readBounded(real: string, file: string, maxBytes: number): GateRead {
  let fd: number;
  try {
    // Non-blocking: a FIFO put in place after the check does not hold the open.
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return notAFile(file, stat);
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const chunk = Buffer.alloc(Math.min(MB, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
    }
    if (total > maxBytes) return tooLarge(file, maxBytes);
    return { file, bytes: Buffer.concat(chunks, total) };
  } finally {
    closeSync(fd);
  }
}

async function openRegular(
  real: string,
  file: string,
): Promise<{ handle: FileHandle; size: number } | Refused> {
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const stat = await handle.stat();
    if (stat.isFile()) return { handle, size: stat.size };
    await handle.close();
    return notAFile(file, stat);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function refused(file: string, kind: RefusalKind, problem: string): Refused {
  return { file, kind, problem };
}

function notAFile(file: string, stat: Stats): Refused {
  return refused(file, "not-a-file", `${file} is not a regular file (${kindOf(stat)})`);
}

function lstatSafe(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSocket()) return "a socket";
  return "not a file";
}

function unreadable(file: string, error: unknown): Refused {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR")
    return refused(file, "missing", `${file} is not on disk`);
  if (code === "EISDIR") return refused(file, "not-a-file", `${file} is a folder, not a file`);
  const why =
    code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? "unknown error");
  return refused(file, "unreadable", `${file} cannot be read (${why})`);
}

function tooLarge(file: string, maxBytes: number): Refused {
  const limit =
    maxBytes >= MB ? `${Math.round((maxBytes / MB) * 10) / 10} MB` : `${maxBytes} bytes`;
  return refused(file, "too-large", `${file} holds more than ${limit}, more than such a file may`);
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
 * file, not a link put in its place, at most `maxBytes`.
 */
export function readRecordedSync(file: string, maxBytes: number): GateRead {
  return readGatedSync(recordedFiles([path.dirname(file)]), file, maxBytes);
}

/** `readRecordedSync`, from a promise. */
export function readRecorded(file: string, maxBytes: number): Promise<GateRead> {
  return readGated(recordedFiles([path.dirname(file)]), file, maxBytes);
}

/** A file gwrun recorded, opened where it lies for a stream (see `readRecordedSync`). */
export function openRecorded(
  file: string,
): Promise<{ handle: FileHandle; size: number } | Refused> {
  return openGated(recordedFiles([path.dirname(file)]), file);
}
