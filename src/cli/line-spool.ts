import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { openNamedFile } from "../core/file-gate.js";

/**
 * Lines kept in a file of the system's temp folder until they are printed: output that comes
 * before them (a plan's totals) is only known once they have all been made.
 */
export class LineSpool {
  readonly #dir = mkdtempSync(path.join(tmpdir(), "gwrun-plan-"));
  readonly #file = path.join(this.#dir, "lines");
  #fd: number | undefined = openSync(this.#file, "w", 0o600);
  #pending: string[] = [];
  #count = 0;

  add(line: string): void {
    this.#pending.push(line);
    this.#count += 1;
    if (this.#pending.length >= 1000) this.#flush();
  }

  get count(): number {
    return this.#count;
  }

  /** The lines in the order added; the spool takes no more. */
  async *lines(): AsyncGenerator<string> {
    this.#flush();
    this.#close();
    const { handle } = await openNamedFile(this.#file);
    const input = handle.createReadStream();
    try {
      for await (const line of createInterface({ input, crlfDelay: Infinity })) yield line;
    } finally {
      // A reader that stops early closes the file too.
      input.destroy();
    }
  }

  /** Removes the file; called whether or not the lines were read. */
  remove(): void {
    this.#close();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  // Closed once: a number closed twice may be another file's by then.
  #close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }

  #flush(): void {
    if (this.#pending.length === 0 || this.#fd === undefined) return;
    writeSync(this.#fd, `${this.#pending.join("\n")}\n`);
    this.#pending = [];
  }
}
