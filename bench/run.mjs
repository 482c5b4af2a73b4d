// `npm run bench`: each benchmark runs in its own process (so peak memory is its own) and
// prints one JSON line of figures.
import { spawnSync } from "node:child_process";
import path from "node:path";

const here = import.meta.dirname;
const benches = [
  ["validate-manifest.mjs", "100000", "explicit"],
  ["validate-manifest.mjs", "100000", "matrix"],
];

let failed = false;
for (const [script, ...args] of benches) {
  const result = spawnSync(process.execPath, [path.join(here, script), ...args], { stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
