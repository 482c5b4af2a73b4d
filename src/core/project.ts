import { existsSync } from "node:fs";
import path from "node:path";
import { resolveFromCwd } from "./io.js";

/**
 * A manifest's project folder: the nearest folder, from the manifest's own upward, that holds
 * `.git`, `package.json` or `data/gwrun.db`; without one, the manifest's own folder. A
 * relative `output.dir` and the default state database resolve against it.
 */

export const PROJECT_MARKERS = [".git", "package.json", path.join("data", "gwrun.db")];

/** The project folder of `start` (a folder): see the rule above. */
export function projectFolder(start: string): string {
  const from = resolveFromCwd(start);
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(path.join(dir, marker)))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}

/** The project folder of a manifest file. */
export function projectOf(manifestFile: string): string {
  return projectFolder(path.dirname(resolveFromCwd(manifestFile)));
}
