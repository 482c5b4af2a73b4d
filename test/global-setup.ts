import { execFileSync } from "node:child_process";
import path from "node:path";

/** End-to-end tests spawn bin/gwrun.js, which runs the compiled dist/: build it once first. */
export default function setup(): void {
  const root = path.resolve(import.meta.dirname, "..");
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
}
