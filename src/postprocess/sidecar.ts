import { readFile } from "node:fs/promises";
import path from "node:path";
import { type OutputVerdict, partialDir, writeWhole } from "../engine/index.js";

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
  await writeWhole(sidecar, `${JSON.stringify(record, null, 2)}\n`, partialDir(outputDir));
}
