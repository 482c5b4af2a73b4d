import { renameSync, rmSync } from "node:fs";
import type { FileWrites, PieceFile } from "../core/file-writes.js";

/** Text written to a file in large chunks as it is produced, renamed into place when whole. */
export class ChunkedFile {
  readonly #target: string;
  readonly #partial: string;
  readonly #file: PieceFile;
  #closed = false;
  #chunks: string[] = [];
  #size = 0;

  constructor(target: string, files: FileWrites) {
    this.#target = target;
    this.#partial = `${target}.${process.pid}.partial`;
    this.#file = files.open(this.#partial);
  }

  write(text: string): void {
    this.#chunks.push(text);
    this.#size += text.length;
    if (this.#size >= 1 << 16) this.#flush();
  }

  #flush(): void {
    if (this.#chunks.length > 0) this.#file.write(this.#chunks.join(""));
    this.#chunks = [];
    this.#size = 0;
  }

  commit(): void {
    this.#flush();
    this.#close();
    renameSync(this.#partial, this.#target);
  }

  /** Removes the partial file (after an error); a committed file stays. */
  abandon(): void {
    this.#close();
    rmSync(this.#partial, { force: true });
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#file.close();
  }
}
