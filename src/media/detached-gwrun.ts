import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commandIo } from "../core/io.js";
import { ownFileUrl } from "../core/own-files.js";

/**
 * Starts `gwrun ARGS` as a process of its own, in its own session, writing its stdout and
 * stderr to files: it goes on whatever becomes of the process that started it (an agent's
 * server the client stopped). Here because programs are run from this folder only.
 */

/** The binary of this gwrun. */
const BIN = ownFileUrl("bin/gwrun.js");

export interface Detached {
  pid: number;
  /** Resolves with its exit code when it ends (while this process lives to see it). */
  exited: Promise<number | null>;
}

export function startDetachedGwrun(
  args: readonly string[],
  files: { stdout: string; stderr: string },
): Detached {
  const { cwd, env } = commandIo();
  const out = openSync(files.stdout, "wx");
  const err = openSync(files.stderr, "wx");
  try {
    const child = spawn(process.execPath, [fileURLToPath(BIN), ...args], {
      cwd,
      env,
      detached: true,
      stdio: ["ignore", out, err],
    });
    const exited = new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.once("error", () => resolve(null));
    });
    child.unref();
    return { pid: child.pid ?? 0, exited };
  } finally {
    closeSync(out);
    closeSync(err);
  }
}
