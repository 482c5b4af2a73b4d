import path from "node:path";
import type { PublishTarget } from "../manifest/index.js";
import type { RunRow, Store } from "../store/index.js";
import type { ObjectStorage } from "./object-storage.js";
import { bodyOf, contentTypeOf, fileFacts, objectKey, relativeKey } from "./output-objects.js";
import { publishTask } from "./publish-outputs.js";
import { putObject, UploadFailed } from "./upload.js";

/** What publishing a run's outputs found and did. */
export interface RunPublished {
  /** Objects uploaded and verified now. */
  uploaded: number;
  /** Done outputs in every target. */
  published: number;
  /** Outputs not in every target, all counted. */
  unpublished: number;
  /** Why, one line an output: the first `problemsKept`, or all. */
  problems: string[];
  /** Credentials or permissions refused: what was tried and why. */
  refused?: string;
}

/** Problems a run's end lists; `gwrun publish` lists all. */
export const PROBLEMS_KEPT = 5;

/**
 * Publishes every done output of a run that is not in each target yet. With `verify`, objects
 * the record holds are looked for in the bucket and sent again if gone.
 */
export async function publishRun(
  store: Store,
  run: Pick<RunRow, "id" | "output_dir">,
  storage: ObjectStorage,
  targets: readonly PublishTarget[],
  options: { verify?: boolean; now?: () => number; problemsKept?: number } = {},
): Promise<RunPublished> {
  const kept = options.problemsKept ?? PROBLEMS_KEPT;
  const result: RunPublished = { uploaded: 0, published: 0, unpublished: 0, problems: [] };
  const place = {
    store,
    storage,
    targets,
    outputDir: run.output_dir,
    now: options.now ?? Date.now,
  };
  const done = new Map<string, { label: string; outputs: number }>();
  for await (const row of store.reportRows({ run: run.id })) {
    if (row.task.state !== "done" || row.output === null || row.output.path === null) continue;
    const entry = done.get(row.task.key) ?? { label: row.task.label, outputs: 0 };
    entry.outputs += 1;
    done.set(row.task.key, entry);
  }
  for (const [key, { label, outputs }] of done) {
    const published = await publishTask({ key }, place, { verify: options.verify });
    result.uploaded += published.uploaded;
    if (published.refused) {
      result.refused = published.missing.at(-1)?.reason;
      result.unpublished += outputs;
      return result;
    }
    const missing = new Set(published.missing.map(({ idx }) => idx));
    result.unpublished += missing.size;
    result.published += outputs - missing.size;
    // One line an output, its targets' reasons together, so the lines count the outputs.
    for (const idx of missing)
      if (result.problems.length < kept) {
        const reasons = published.missing.filter((one) => one.idx === idx).map((one) => one.reason);
        result.problems.push(`${label} output ${idx + 1}: ${reasons.join("; ")}`);
      }
  }
  return result;
}

/**
 * Files of the folder (`results.jsonl`, the gallery), sent as they are now to every target:
 * they link to the outputs by the same relative keys. Resolves with the problems met.
 */
export async function publishFolderFiles(
  names: readonly string[],
  outputDir: string,
  storage: ObjectStorage,
  targets: readonly PublishTarget[],
): Promise<string[]> {
  const problems: string[] = [];
  for (const name of names) {
    const file = path.join(outputDir, name);
    const facts = await fileFacts(outputDir, file);
    if (facts === undefined) continue;
    if ("refused" in facts) {
      problems.push(`${name} not published: ${facts.refused}`);
      continue;
    }
    for (const target of targets)
      try {
        await putObject(storage, target, {
          file,
          body: () => bodyOf(outputDir, file),
          key: objectKey(target, relativeKey(outputDir, file)),
          ...facts,
          contentType: contentTypeOf(file),
        });
      } catch (error) {
        if (!(error instanceof UploadFailed)) throw error;
        problems.push(error.message);
        if (error.refused) return problems;
      }
  }
  return problems;
}
