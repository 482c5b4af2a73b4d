import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { buildCli } from "./helpers/build.js";

const ROOT = path.resolve(import.meta.dirname, "..");

/**
 * Runs once per `npm run test:portable`: the tests that spawn bin/gwrun.js need dist/, built
 * unless it is newer than every source (as `.ci/run`'s `npm test` just left it: the build is
 * the same on every Node). No store-bound test runs, so no PostgreSQL is started.
 */
export default async function setup(): Promise<void> {
  if (!builtSinceLastEdit()) await buildCli();
}

function builtSinceLastEdit(): boolean {
  let built: number;
  try {
    built = statSync(path.join(ROOT, "dist/bin/main.js")).mtimeMs;
  } catch {
    return false;
  }
  const sources = readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" });
  return [...sources.map((file) => path.join("src", file)), "tsconfig.build.json"].every(
    (file) => statSync(path.join(ROOT, file)).mtimeMs <= built,
  );
}
