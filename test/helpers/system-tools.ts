import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Tests that drive a program of the system (Debian's chromium, tmux) run where it is
 * installed, and always under CI, whose `.ci/run` installs both: there a missing program fails
 * its test instead of skipping it.
 */
export function runsWith(program: string): boolean {
  const ci = process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI);
  return ci || installed(program);
}

function installed(program: string): boolean {
  if (program.includes("/")) return existsSync(program);
  return spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
}
