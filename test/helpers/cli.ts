import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { gwrunInProcess } from "./in-process-cli.js";
import { ROOT } from "./root.js";

export { ROOT };
const BIN = path.join(ROOT, "bin/gwrun.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `gwrun` as a user runs it from the project root, where no process boundary is under test:
 * in this process (`gwrunHere`). `gwrunProcess` spawns the built binary.
 */
export function gwrun(
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  return gwrunHere(args, options);
}

/** Runs the built `gwrun` binary as a user would, from the project root. */
export function gwrunProcess(
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    input: options.input,
    encoding: "utf8",
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...options.env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Starts the built `gwrun` without blocking this process (a simulator may be running in it);
 * `done` resolves when it exits.
 */
export function gwrunAsync(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.once("close", (code, signal) =>
      resolve({ code: code ?? (signal === null ? null : 128), stdout, stderr }),
    );
  });
  return { child, done };
}

/**
 * `gwrun` as a test calls it where no process boundary is under test: in this process (see
 * `gwrunInProcess`), beside any other command running in it.
 */
export function gwrunHere(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<CliResult> {
  const env = { PATH: process.env.PATH, NO_COLOR: "1", ...options.env };
  return gwrunInProcess(args, { cwd: options.cwd ?? ROOT, env, input: options.input });
}
