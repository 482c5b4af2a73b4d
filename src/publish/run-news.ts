import { plural } from "../core/words.js";
import type { PublishTarget } from "../manifest/index.js";
import { GALLERY_FILE, RESULTS_FILE } from "../postprocess/index.js";
import type { RunRow, Store } from "../store/index.js";
import type { ObjectStorage } from "./object-storage.js";
import { publishFolderFiles, publishRun, type RunPublished } from "./publish-run.js";

/** A run's publishing as its end tells it (`gwrun run`, the fleet process that settles it, `gwrun publish`). */

/** What publishing a run's outputs left: lines for the person, and whether all are there. */
export interface PublishNews {
  lines: string[];
  complete: boolean;
}

/**
 * Publishes what a run left unpublished (an upload that failed, a crash before it), then,
 * once `results.jsonl` and the gallery are written, those (`folderFiles`).
 */
export async function publishRunOutputs(
  store: Store,
  run: Pick<RunRow, "id" | "output_dir">,
  storage: ObjectStorage,
  targets: readonly PublishTarget[],
  options: { verify?: boolean; listAll?: boolean } = {},
): Promise<PublishNews> {
  const published = await publishRun(store, run, storage, targets, {
    verify: options.verify,
    problemsKept: options.listAll === true ? Number.POSITIVE_INFINITY : undefined,
  });
  const where = targets.map((target) => target.url).join(", ");
  const lines = [
    `${plural(published.published, "output")} of run ${run.id} in ${where}${published.uploaded > 0 ? ` (${plural(published.uploaded, "object")} uploaded now)` : ""}`,
  ];
  if (published.refused !== undefined) lines.push(`not published: ${published.refused}`);
  if (published.unpublished > 0)
    lines.push(
      `${plural(published.unpublished, "output")} not published:`,
      ...published.problems.map((problem) => `  ${problem}`),
      ...unlisted(published, run.id),
      `  \`gwrun publish ${run.id}\` sends them when the cause is mended`,
    );
  return { lines, complete: published.unpublished === 0 && published.refused === undefined };
}

/** The line for outputs not published that were left out of the list, and where all are. */
function unlisted(published: RunPublished, runId: number): string[] {
  const more = published.unpublished - published.problems.length;
  if (more <= 0 || published.refused !== undefined) return [];
  return [`  and ${more} more (\`gwrun publish ${runId}\` lists each with its cause)`];
}

/** `results.jsonl` and the gallery as just written, to every target; problems as lines. */
export async function publishFolderRecord(
  outputDir: string,
  storage: ObjectStorage,
  targets: readonly PublishTarget[],
): Promise<string[]> {
  const problems = await publishFolderFiles(
    [RESULTS_FILE, GALLERY_FILE],
    outputDir,
    storage,
    targets,
  );
  return problems.map((problem) => `not published: ${problem}`);
}
