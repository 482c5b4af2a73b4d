import { statSync } from "node:fs";
import { Writable } from "node:stream";
import Database from "better-sqlite3";
import { type FileWrites, nodeFileWrites, type PieceFile } from "../../src/core/file-writes.js";
import type { SqliteStoreOptions, StepRunner } from "../../src/store/index.js";

/**
 * A full or read-only disk on any machine, without mounting one: file writes that fail as
 * Linux fails them (ENOSPC, EROFS) once a budget of bytes is spent, and a state database whose
 * writes fail as better-sqlite3 fails them on a full disk (SQLITE_FULL). The real disks are in
 * `tmpfs.ts`, where this process may mount them.
 */

export type DiskFault = "ENOSPC" | "EROFS";

const TEXT: Readonly<Record<DiskFault, { errno: number; text: string }>> = {
  ENOSPC: { errno: -28, text: "no space left on device" },
  EROFS: { errno: -30, text: "read-only file system" },
};

/** The error Node raises for `syscall` on `file` when the disk refuses it. */
export function diskError(code: DiskFault, syscall: string, file: string): NodeJS.ErrnoException {
  const { errno, text } = TEXT[code];
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${file}'`), {
    errno,
    code,
    syscall,
    path: file,
  });
}

export interface WriteFault {
  code: DiskFault;
  /** Bytes the disk takes before it refuses (default 0: it refuses the first). */
  afterBytes?: number;
  /** Only writes to paths it matches meet the fault (a named step: /results\.jsonl/); default all. */
  only?: RegExp;
}

/** File writes through `inner` (default: the real ones) until the fault's budget is spent. */
export class FailingWrites implements FileWrites {
  /** Every path a write was refused at, in order. */
  readonly refused: string[] = [];
  #written = 0;
  readonly #fault: WriteFault;
  readonly #inner: FileWrites;

  constructor(fault: WriteFault, inner: FileWrites = nodeFileWrites) {
    this.#fault = fault;
    this.#inner = inner;
  }

  /**
   * The error for a write of `bytes` to `file`, or undefined when the disk takes it. A
   * read-only disk without a budget refuses even to open a file; a full one opens it.
   */
  #refusal(file: string, bytes: number, syscall = "write"): NodeJS.ErrnoException | undefined {
    const { code, afterBytes, only } = this.#fault;
    if (only !== undefined && !only.test(file)) return undefined;
    const budget = afterBytes ?? (code === "EROFS" ? -1 : 0);
    if (this.#written + bytes <= budget) {
      this.#written += bytes;
      return undefined;
    }
    this.refused.push(file);
    return diskError(code, syscall, file);
  }

  whole(partial: string, file: string, data: string | Uint8Array): Promise<void> {
    const refused = this.#refusal(file, Buffer.byteLength(data));
    return refused === undefined ? this.#inner.whole(partial, file, data) : Promise.reject(refused);
  }

  stream(file: string): Writable {
    const inner = this.#inner.stream(file);
    return new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        const refused = this.#refusal(file, chunk.length);
        if (refused !== undefined) return callback(refused);
        inner.write(chunk, (error) => callback(error));
      },
      final: (callback) => {
        inner.end((error?: Error | null) => callback(error));
      },
      destroy: (error, callback) => {
        inner.destroy();
        callback(error);
      },
    });
  }

  open(file: string): PieceFile {
    const refused = this.#refusal(file, 0, "open");
    if (refused !== undefined) throw refused;
    const inner = this.#inner.open(file);
    return {
      write: (text) => {
        const refused = this.#refusal(file, Buffer.byteLength(text));
        if (refused !== undefined) throw refused;
        inner.write(text);
      },
      close: () => inner.close(),
    };
  }

  copy(from: string, to: string): Promise<void> {
    const refused = this.#refusal(to, statSync(from).size);
    return refused === undefined ? this.#inner.copy(from, to) : Promise.reject(refused);
  }
}

/** Steps of the store's programs that write (a read never fills a disk). */
const READS = new Set(["rows", "lock", "lockName"]);

/** The disk under a SQLite store, for `openStore(file, disk)`: full after `afterWrites`, or when filled. */
export interface SqliteDisk extends SqliteStoreOptions {
  /** From now on every write fails as on a full disk. */
  fill(): void;
  /** Writes go through again. */
  free(): void;
  /** Writing steps that went through. */
  writes(): number;
}

/** What better-sqlite3 says for each refusal of a disk. */
const SQLITE_REFUSALS = {
  SQLITE_FULL: "database or disk is full",
  SQLITE_READONLY: "attempt to write a readonly database",
} as const;

/**
 * A disk under a SQLite store that fills (or turns read-only: `code`) after `afterWrites`
 * writing steps (default never, until `fill()`): each later one fails with the error
 * better-sqlite3 raises there (SqliteError, its code), inside the executor, so the store
 * reports it as it reports a real one.
 */
export function sqliteDisk(
  afterWrites = Number.POSITIVE_INFINITY,
  code: keyof typeof SQLITE_REFUSALS = "SQLITE_FULL",
): SqliteDisk {
  let done = 0;
  let full = false;
  return {
    fill: () => {
      full = true;
    },
    free: () => {
      full = false;
    },
    writes: () => done,
    steps:
      (own: StepRunner): StepRunner =>
      (s, given) => {
        if (READS.has(given.kind)) return own(s, given);
        if (full || done >= afterWrites)
          throw new Database.SqliteError(SQLITE_REFUSALS[code], code);
        done += 1;
        return own(s, given);
      },
  };
}
