import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { ErrorCode, GwError } from "./errors.js";

/**
 * Reading one file at a path already allowed (`file-gate.ts` decides which): opened without
 * blocking, a regular file only, never more than the bytes asked for however it grows, and a
 * refusal as a sentence that names it. With `links: "refused"` a link found in its place is
 * refused by the open itself.
 */

const MB = 1024 * 1024;

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

/** Whether a link at the path itself is followed, or refused. */
export type LastLink = "followed" | "refused";

// Non-blocking: a FIFO put in place after a check does not hold the open.
function flagsFor(link: LastLink): number {
  const noFollow = link === "refused" ? (constants.O_NOFOLLOW ?? 0) : 0;
  return constants.O_RDONLY | constants.O_NONBLOCK | noFollow;
}

/**
 * `use` given `real` opened synchronously, when it is a regular file, and closed after; a file
 * that cannot be opened, or is no regular file, is refused naming `file`.
 */
function withRegularSync<T>(
  real: string,
  file: string,
  link: LastLink,
  use: (fd: number, stat: Stats) => T | Refused,
): T | Refused {
  let fd: number;
  try {
    fd = openSync(real, flagsFor(link));
  } catch (error) {
    return unreadable(file, error);
  }
  try {
    const stat = fstatSync(fd);
    return stat.isFile() ? use(fd, stat) : notAFile(file, stat);
  } finally {
    closeSync(fd);
  }
}

/** The bytes of `real`, at most `maxBytes`; `file` names it in a refusal. */
export function readBounded(
  real: string,
  file: string,
  maxBytes: number,
  link: LastLink = "followed",
): GateRead {
  return withRegularSync(real, file, link, (fd, stat) => {
    let bytes: Buffer = Buffer.allocUnsafe(firstRead(stat.size, maxBytes));
    let total = 0;
    for (;;) {
      if (total === bytes.length) {
        if (total > maxBytes) break;
        bytes = grown(bytes, maxBytes);
      }
      const read = readSync(fd, bytes, total, bytes.length - total, null);
      if (read === 0) break;
      total += read;
    }
    if (total > maxBytes) return tooLarge(file, maxBytes);
    return { file, bytes: bytes.subarray(0, total) };
  });
}

// Large enough to keep reads few, small enough that hashing a clip holds little of it.
const DIGEST_CHUNK = 1024 * 1024;

/** The size and sha256 (hex) of `real`, read a chunk at a time whatever its size; `file` names it. */
export function digestBounded(
  real: string,
  file: string,
): { file: string; bytes: number; sha256: string } | Refused {
  return withRegularSync(real, file, "followed", (fd, stat) => {
    try {
      const hash = createHash("sha256");
      const chunk = Buffer.allocUnsafe(Math.min(DIGEST_CHUNK, stat.size + 1));
      let bytes = 0;
      for (;;) {
        const read = readSync(fd, chunk, 0, chunk.length, null);
        if (read === 0) break;
        hash.update(chunk.subarray(0, read));
        bytes += read;
      }
      return { file, bytes, sha256: hash.digest("hex") };
    } catch (error) {
      return unreadable(file, error);
    }
  });
}

/** `real` opened for reading when it is a regular file; the caller closes it. */
export async function openRegular(
  real: string,
  file: string,
  link: LastLink = "followed",
): Promise<{ handle: FileHandle; size: number } | Refused> {
  let handle: FileHandle;
  try {
    handle = await open(real, flagsFor(link));
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

/** Reads `length` bytes at `position` of an opened file (fewer at its end). */
export type ReadAt = (position: number, length: number) => Buffer;

// A small file is read in one call; a large one a window at a time, where its parts are.
const WINDOW = 64 * 1024;

/**
 * `use` given a reader of `real` and its size, the file opened synchronously when it is a
 * regular file, and closed after: for walking a file's structure a few bytes at a time.
 */
export function walkRegularSync<T>(
  real: string,
  file: string,
  link: LastLink,
  use: (readAt: ReadAt, size: number) => T,
): T | Refused {
  return withRegularSync(real, file, link, (fd, { size }) => {
    let window = { at: 0, bytes: Buffer.alloc(0) };
    const readAt: ReadAt = (position, length) => {
      const end = Math.min(size, position + length);
      if (position < window.at || end > window.at + window.bytes.length) {
        const wanted = Math.max(0, Math.min(Math.max(length, WINDOW), size - position));
        const buffer = Buffer.allocUnsafe(wanted);
        const read = readSync(fd, buffer, 0, wanted, position);
        window = { at: position, bytes: buffer.subarray(0, read) };
      }
      return window.bytes.subarray(position - window.at, Math.max(position, end) - window.at);
    };
    return use(readAt, size);
  });
}

/** The bytes of a file `openRegular` opened (or its refusal), at most `maxBytes`; closes it. */
export async function readOpened(
  opened: { handle: FileHandle; size: number } | Refused,
  file: string,
  maxBytes: number,
): Promise<GateRead> {
  if ("problem" in opened) return opened;
  try {
    let bytes: Buffer = Buffer.allocUnsafe(firstRead(opened.size, maxBytes));
    let total = 0;
    for (;;) {
      if (total === bytes.length) {
        if (total > maxBytes) break;
        bytes = grown(bytes, maxBytes);
      }
      const { bytesRead } = await opened.handle.read(bytes, total, bytes.length - total, null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total > maxBytes) return tooLarge(file, maxBytes);
    return { file, bytes: bytes.subarray(0, total) };
  } finally {
    await opened.handle.close();
  }
}

/**
 * How much a read asks for first: the file's size and one byte more, which shows a file that
 * grew past its bound; sized by the file, so 10,000 small outputs allocate no bound's worth each.
 */
function firstRead(size: number, maxBytes: number): number {
  return Math.min(size, maxBytes) + 1;
}

/** `bytes`, in a buffer twice as large (at most one byte past `maxBytes`) to read on into. */
function grown(bytes: Buffer, maxBytes: number): Buffer {
  const next = Buffer.allocUnsafe(Math.min(bytes.length * 2, maxBytes + 1));
  bytes.copy(next);
  return next;
}

/**
 * A refusal as an error: a missing file as Node's own (`code` ENOENT, its path), anything else
 * as the person's mistake, saying what is wrong with the file.
 */
export function refusalError(refusal: Refused): Error {
  if (refusal.kind !== "missing") return new GwError(ErrorCode.Usage, refusal.problem);
  return Object.assign(new Error(refusal.problem), {
    code: "ENOENT",
    syscall: "open",
    path: refusal.file,
  });
}

export function refused(file: string, kind: RefusalKind, problem: string): Refused {
  return { file, kind, problem };
}

export function notAFile(file: string, stat: Stats): Refused {
  return refused(file, "not-a-file", `${file} is not a regular file (${kindOf(stat)})`);
}

function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a folder";
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return "a device";
  if (stat.isSocket()) return "a socket";
  return "not a file";
}

export function unreadable(file: string, error: unknown): Refused {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR")
    return refused(file, "missing", `${file} is not on disk`);
  if (code === "EISDIR") return refused(file, "not-a-file", `${file} is a folder, not a file`);
  // Opened without following a link, and one lay in its place.
  if (code === "ELOOP")
    return refused(file, "outside", `${file} is a link, not the file gwrun recorded there`);
  const why =
    code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? "unknown error");
  return refused(file, "unreadable", `${file} cannot be read (${why})`);
}

export function tooLarge(file: string, maxBytes: number): Refused {
  const limit =
    maxBytes >= MB ? `${Math.round((maxBytes / MB) * 10) / 10} MB` : `${maxBytes} bytes`;
  return refused(file, "too-large", `${file} holds more than ${limit}, more than such a file may`);
}
