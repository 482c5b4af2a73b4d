import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Compiles src/ into dist/ with the Node running the tests, and gathers the declarations into
 * dist/gwrun.d.ts, as `npm run build` does.
 */
export async function buildCli(): Promise<void> {
  const root = path.resolve(import.meta.dirname, "../..");
  const run = (script: string, args: readonly string[]) =>
    promisify(execFile)(process.execPath, [path.join(root, script), ...args], {
      cwd: root,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`the build failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`, {
        cause: error,
      });
    });
  await run("node_modules/typescript/bin/tsc", ["-p", "tsconfig.build.json"]);
  await run("node_modules/rollup/dist/bin/rollup", ["-c", "scripts/types.rollup.mjs", "--silent"]);
}
