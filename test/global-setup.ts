import { execFileSync } from "node:child_process";
import path from "node:path";
import { skippedTestsNoticeHere } from "./helpers/system-tools.js";

/**
 * End-to-end tests spawn bin/gwrun.js, which runs the compiled dist/: build it once first.
 * Global setup runs once per `npm test`, so a skipped system test is announced once, here.
 */
export default function setup(): void {
  const notice = skippedTestsNoticeHere();
  if (notice !== undefined) process.stderr.write(`${notice}\n`);
  const root = path.resolve(import.meta.dirname, "..");
  const tsc = path.join(root, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
}
