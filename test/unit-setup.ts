import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { afterEach, expect } from "vitest";

/**
 * Set up before each file of the unit project, whose tests run in-process: a test that starts
 * a child process (the CLI, ffmpeg, a shell) fails and says which project it belongs in. The
 * start is refused, so nothing is left running, and the test fails even where the code under
 * test turns the refusal into an error of its own.
 */
const STARTS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"];
const started: string[] = [];

for (const name of STARTS) {
  const modules = childProcess as unknown as Record<string, unknown>;
  modules[name] = (command: unknown, args?: unknown) => {
    const line = [command, ...(Array.isArray(args) ? args : [])].join(" ");
    started.push(line);
    throw new Error(`a unit test starts no child process (${name} ${line})`);
  };
}
syncBuiltinESMExports();

afterEach(() => {
  const lines = started.splice(0);
  expect(
    lines,
    "this test starts child processes: a unit test runs in-process, so its file belongs under test/e2e",
  ).toEqual([]);
});
