import { rmSync } from "node:fs";
import path from "node:path";
import { commandIo, resolveFromCwd } from "../core/io.js";
import type { RunRow, Store } from "../store/index.js";

/**
 * `keep: { runs: N }`: the newest N scheduled runs of a manifest stay; older ones lose their
 * files and their records, and tick records older than the oldest run kept go too. Files are
 * removed before records, so a prune cut short is finished by the next one.
 */
export async function pruneRuns(
  store: Store,
  name: string,
  keep: number,
): Promise<{ pruned: RunRow[]; files: number }> {
  const runs = await store.scheduledRuns(name);
  const kept = runs.slice(0, keep);
  const pruned = runs.slice(keep);
  let files = 0;
  for (const run of pruned) {
    files += removeFilesOf(await store.filesOfRun(run.id), run, kept);
    await store.deleteRun(run.id);
  }
  const oldestKept = kept.at(-1)?.tick;
  if (pruned.length > 0 && oldestKept !== undefined && oldestKept !== null) {
    await store.deleteTicksBefore(name, oldestKept);
  }
  return { pruned, files };
}

/**
 * Removes a run's output files with their sidecars, thumbnails and posters — only inside its
 * output folder — then the folder itself when no kept run shares it.
 */
function removeFilesOf(files: readonly string[], run: RunRow, kept: readonly RunRow[]): number {
  const dir = resolveFromCwd(run.output_dir);
  let removed = 0;
  for (const file of files) {
    const resolved = resolveFromCwd(file);
    if (!isInside(resolved, dir)) continue;
    for (const target of [resolved, `${resolved}.json`]) {
      rmSync(target, { force: true });
    }
    removed += 1;
  }
  const shared = kept.some((other) => {
    const theirs = resolveFromCwd(other.output_dir);
    return theirs === dir || isInside(theirs, dir) || isInside(dir, theirs);
  });
  // The folder holds only this run's outputs, gallery and results: it goes whole (never the
  // working folder or one above it).
  const { cwd } = commandIo();
  if (!shared && dir !== cwd && !isInside(cwd, dir) && dir !== path.parse(dir).root) {
    rmSync(dir, { recursive: true, force: true });
  }
  return removed;
}

function isInside(file: string, dir: string): boolean {
  const relative = path.relative(dir, file);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
}
