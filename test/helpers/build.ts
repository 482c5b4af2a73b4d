import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Compiles src/ into dist/ with the Node running the tests, gathers the declarations into
 * dist/gwrun.d.ts and the command line into dist/bin/, as `npm run build` does.
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
  await Promise.all(
    ["scripts/types.rollup.mjs", "scripts/cli.rollup.mjs"].map((config) =>
      run("node_modules/rollup/dist/bin/rollup", ["-c", config, "--silent"]),
    ),
  );
}
