import { AsyncLocalStorage } from "node:async_hooks";
import path from "node:path";

/**
 * What a command runs with: its standard streams, its environment and its working folder.
 * The bin gives the process's own; a program or a test may give others, and several commands
 * may run in one process at once, each with its own. Code on a command's path reads them
 * here (`commandIo`), never from `process`.
 */

/** A stream written to; a terminal says so (`isTTY`) and how large it is. */
export type OutStream = NodeJS.WritableStream & {
  isTTY?: boolean;
  columns?: number;
  rows?: number;
};

/** A stream read from; a terminal says so. */
export type InStream = NodeJS.ReadableStream & { isTTY?: boolean };

export interface CommandIo {
  stdout: OutStream;
  stderr: OutStream;
  stdin: InStream;
  env: NodeJS.ProcessEnv;
  /** The working folder (absolute): what relative paths are taken from. */
  cwd: string;
}

// Kept along the command's asynchronous calls, so code deep in it needs no parameter.
const running = new AsyncLocalStorage<CommandIo>();

/** `io`, with what it leaves out taken from the process. */
function completed(io: Partial<CommandIo>): CommandIo {
  return {
    stdout: io.stdout ?? process.stdout,
    stderr: io.stderr ?? process.stderr,
    // Node makes process.stdin when it is first read: a command that reads none leaves it be.
    get stdin() {
      return io.stdin ?? process.stdin;
    },
    env: io.env ?? process.env,
    // A relative one is taken from the process's, as a child's `cwd` is.
    cwd: io.cwd === undefined ? process.cwd() : path.resolve(io.cwd),
  };
}

/** Runs `fn` as a command with `io` (what it leaves out is the process's). */
export function withCommandIo<T>(io: Partial<CommandIo>, fn: () => T): T {
  return running.run(completed(io), fn);
}

/** What the command running here was given; the process's own when none runs. */
export function commandIo(): CommandIo {
  return running.getStore() ?? completed({});
}

/** `path.resolve` from the command's working folder rather than the process's. */
export function resolveFromCwd(...paths: string[]): string {
  return path.resolve(commandIo().cwd, ...paths);
}

/** `file` as messages show it: relative to the working folder, unless it is that folder. */
export function shownFromCwd(file: string): string {
  return path.relative(commandIo().cwd, file) || file;
}
