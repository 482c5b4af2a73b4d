import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

/** Compiles src/ into dist/ with the Node running the tests, as `npm run build` does. */
export async function buildCli(): Promise<void> {
  const root = path.resolve(import.meta.dirname, "../..");
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  await promisify(execFile)(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
  }).catch((error: { stdout?: string }) => {
    throw new Error(`the build failed:\n${error.stdout ?? ""}`, { cause: error });
  });
}
