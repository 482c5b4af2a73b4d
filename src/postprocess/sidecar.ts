import { readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ensureDir, partialFile } from "../core/fs.js";
import { type OutputVerdict, partialDir } from "../engine/index.js";

/**
 * Adds an output's checks to its provenance sidecar (`<file>.json`), so the asset stays
 * traceable, checks included, once it leaves the folder. A missing sidecar is left missing.
 */
export async function recordChecksInSidecar(
  file: string,
  outputDir: string,
  verdict: OutputVerdict,
): Promise<void> {
  const sidecar = `${file}.json`;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(await readFile(sidecar, "utf8")) as Record<string, unknown>;
  } catch {
    return;
  }
  const relative = (target: string | null) =>
    target === null ? null : path.relative(path.dirname(file), target).split(path.sep).join("/");
  record.checks = {
    state: verdict.ok ? "ok" : "failed",
    problems: verdict.problems,
    ...verdict.details,
  };
  record.thumbnail = relative(verdict.thumbnail);
  record.poster = relative(verdict.poster);
  // Whole or not at all, and off the main thread: a run rewrites one per output.
  const tempDir = partialDir(outputDir);
  await ensureDir(tempDir);
  const partial = partialFile(tempDir, sidecar);
  try {
    await writeFile(partial, `${JSON.stringify(record, null, 2)}\n`);
    await rename(partial, sidecar);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}
