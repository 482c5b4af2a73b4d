import { Worker } from "node:worker_threads";

/**
 * Small files written whole in a thread of their own: to a partial file, then renamed into
 * place. Creating and renaming a file costs the kernel more than the rest of a small
 * picture's way through a run; done in the run's thread it holds up every task, done here it
 * holds up none. The writes asked for in one turn travel in one message.
 */

/** The thread's code: plain JavaScript, so it runs the same from the sources and the build. */
const THREAD = `
const { parentPort } = require("node:worker_threads");
const { renameSync, rmSync, writeFileSync } = require("node:fs");
parentPort.on("message", (writes) => {
  parentPort.postMessage(
    writes.map(({ partial, file, data }) => {
      try {
        writeFileSync(partial, data);
        renameSync(partial, file);
        return null;
      } catch (error) {
        try {
          rmSync(partial, { force: true });
        } catch {}
        return { message: error.message, code: error.code, syscall: error.syscall, path: error.path };
      }
    }),
  );
});
`;

interface Write {
  partial: string;
  file: string;
  data: string | Uint8Array;
}

interface Waiting {
  resolve: () => void;
  reject: (error: Error) => void;
}

type Failure = { message: string; code?: string; syscall?: string; path?: string } | null;

class FileWriter {
  #thread: Worker | undefined;
  #turn: { writes: Write[]; waiting: Waiting[] } | undefined;
  /** Turns sent and not yet answered, oldest first: the thread answers them in order. */
  readonly #sent: Waiting[][] = [];

  write(write: Write): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.#turn === undefined) {
        this.#turn = { writes: [], waiting: [] };
        setImmediate(() => this.#send());
      }
      this.#turn.writes.push(write);
      this.#turn.waiting.push({ resolve, reject });
    });
  }

  #send(): void {
    const turn = this.#turn;
    this.#turn = undefined;
    if (turn === undefined) return;
    const thread = this.#started();
    this.#sent.push(turn.waiting);
    // Held open only while answers are due: an idle writer never keeps the process alive.
    thread.ref();
    thread.postMessage(turn.writes);
  }

  #started(): Worker {
    if (this.#thread !== undefined) return this.#thread;
    // What it allocates lives for one write: a small young generation is all it needs.
    const thread = new Worker(THREAD, {
      eval: true,
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    thread.on("message", (failures: Failure[]) => this.#answered(failures));
    const lost = (error: Error) => {
      if (this.#thread === thread) this.#thread = undefined;
      for (const waiting of this.#sent.splice(0).flat()) waiting.reject(error);
    };
    thread.on("error", lost);
    thread.on("exit", (code) => lost(new Error(`the file-writing thread exited (${code})`)));
    this.#thread = thread;
    return thread;
  }

  #answered(failures: readonly Failure[]): void {
    const waiting = this.#sent.shift() ?? [];
    if (this.#sent.length === 0) this.#thread?.unref();
    waiting.forEach((entry, i) => {
      const failure = failures[i];
      if (failure === null || failure === undefined) entry.resolve();
      else entry.reject(Object.assign(new Error(failure.message), failure));
    });
  }
}

const writer = new FileWriter();

/**
 * Writes `data` to `partial`, then renames it to `file`, in the file-writing thread: `file` is
 * whole or absent. Rejects with the system error (its `code` kept) when either step fails.
 */
export function writeFileWhole(
  partial: string,
  file: string,
  data: string | Uint8Array,
): Promise<void> {
  return writer.write({ partial, file, data });
}
