import { closeSync, createWriteStream, openSync, writeSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import type { Writable } from "node:stream";
import { writeFileWhole } from "./file-writer.js";

/**
 * The writes of a run that a full or read-only disk can break, behind one port: downloads,
 * sidecars and answers, review images, delivered copies, results.jsonl and the gallery. A run
 * carries one (`nodeFileWrites` by default); whoever wraps it sees every byte a run writes.
 * Each rejects or throws with the system error, its `code` kept (ENOSPC, EROFS, …).
 */
export interface FileWrites {
  /** Writes `data` to `partial`, then renames it to `file`: `file` is whole or absent. */
  whole(partial: string, file: string, data: string | Uint8Array): Promise<void>;
  /** A stream writing to `file` (created, or emptied): a download too large to hold in memory. */
  stream(file: string): Writable;
  /** `file` opened to be written in pieces, synchronously: a record written as it is read. */
  open(file: string): PieceFile;
  /** Copies `from` to `to` (created, or replaced). */
  copy(from: string, to: string): Promise<void>;
}

/** A file being written piece by piece. */
export interface PieceFile {
  write(text: string): void;
  close(): void;
}

/** The writes straight to this machine's file systems. */
export const nodeFileWrites: FileWrites = {
  whole: writeFileWhole,
  stream: (file) => createWriteStream(file),
  open(file) {
    const fd = openSync(file, "w");
    return {
      write: (text) => {
        writeSync(fd, text);
      },
      close: () => closeSync(fd),
    };
  },
  copy: (from, to) => copyFile(from, to),
};
