import { spawnSync } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/gwrun.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `gwrun` binary as a user would, from the project root. */
export function gwrun(
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
