import { Readable, Writable } from "node:stream";
import { main } from "../../src/cli/program.js";

/**
 * The command line run inside the test's process, as `bin/gwrun.js` runs it in its own: the
 * same `main`, given the environment, working folder and standard streams it would have, as a
 * program may give them; `process` is left as it is. It spares a test the half second a Node
 * process takes to start. Commands may run side by side: nothing of one is kept on `process`
 * (each sees only its own streams, environment and folder), and none draws Ink's dashboard,
 * which needs a terminal.
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

/**
 * Runs `gwrun args` in this process in `cwd`, with only `env` in its environment and `input`
 * (or nothing) on its standard input.
 */
export async function gwrunInProcess(
  args: readonly string[],
  { cwd, env, input }: { cwd: string; env: NodeJS.ProcessEnv; input?: string },
): Promise<InProcessResult> {
  const stdout = new Collected();
  const stderr = new Collected();
  const stdin = Readable.from(input === undefined ? [] : [input]);
  const code = await main(args, { stdout, stderr, stdin, env, cwd });
  return { code, stdout: stdout.text, stderr: stderr.text };
}
