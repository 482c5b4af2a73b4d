import { Readable, Writable } from "node:stream";
import { main } from "../../src/cli/program.js";

/**
 * The command line run inside the test's process, as `bin/gwrun.js` runs it in its own: the
 * same `main`, with the environment, working folder and standard streams it would have. It
 * spares a test the half second a Node process takes to start. One command runs in-process at
 * a time (they share `process`); `running()` says whether one is under way.
 */

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Text written to a stream that is not a terminal, as a pipe to a parent would take it. */
class Collected extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

// The test runner's own variables, which it may read while a command runs.
const RUNNER_VARIABLES = /^(VITEST|TINYPOOL)/;

let under: Promise<unknown> | undefined;

export function running(): boolean {
  return under !== undefined;
}

/**
 * Runs `gwrun args` in this process in `cwd`, with only `env` in its environment and `input`
 * (or nothing) on its standard input.
 */
export async function gwrunInProcess(
  args: readonly string[],
  { cwd, env, input }: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<InProcessResult> {
  if (under !== undefined) throw new Error("a gwrun command is already running in this process");
  const stdout = new Collected();
  const stderr = new Collected();
  const saved = {
    env: process.env,
    cwd: process.cwd(),
    stdout: Object.getOwnPropertyDescriptor(process, "stdout"),
    stderr: Object.getOwnPropertyDescriptor(process, "stderr"),
    stdin: Object.getOwnPropertyDescriptor(process, "stdin"),
  };
  const stdin = Readable.from(input === undefined ? [] : [input]);
  const kept = Object.entries(process.env).filter(([name]) => RUNNER_VARIABLES.test(name));
  process.env = { ...Object.fromEntries(kept), ...env };
  process.chdir(cwd);
  Object.defineProperty(process, "stdout", { configurable: true, get: () => stdout });
  Object.defineProperty(process, "stderr", { configurable: true, get: () => stderr });
  Object.defineProperty(process, "stdin", { configurable: true, get: () => stdin });
  const command = main(args);
  under = command;
  try {
    const code = await command;
    return { code, stdout: stdout.text, stderr: stderr.text };
  } finally {
    under = undefined;
    if (saved.stdout !== undefined) Object.defineProperty(process, "stdout", saved.stdout);
    if (saved.stderr !== undefined) Object.defineProperty(process, "stderr", saved.stderr);
    if (saved.stdin !== undefined) Object.defineProperty(process, "stdin", saved.stdin);
    process.chdir(saved.cwd);
    process.env = saved.env;
  }
}
