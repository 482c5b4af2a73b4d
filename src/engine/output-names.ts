import { MOST_VERSIONS, outputPath } from "../core/output-files.js";
import type { Store } from "../store/index.js";

/**
 * A paid file is never overwritten. An output's file is `<job>/<label>.<ext>` unless another
 * output's record holds that name (a task whose request changed since, under the same label,
 * or one delivered there); then it is `<label>-v2.<ext>`, `-v3`, …: the first name no record
 * holds. A file no record names is taken over: the output's own earlier file, a download a
 * crash left unrecorded, or the files of a request made again on purpose (`--force`, a check
 * with `on_fail: retry`), which the record let go of.
 */

/** Where an output's file goes: its folder, task and place among the task's outputs. */
export interface OutputPlace {
  outputDir: string;
  jobId: string;
  label: string;
  key: string;
  index: number;
  count: number;
  contentType: string;
}

/**
 * The first name of `place` no other output's record holds (see above). `labelShared`: another
 * task may go by its label (false when known it does not: then its first name is free).
 */
export async function freeOutputPath(
  store: Pick<Store, "outputAt">,
  place: OutputPlace,
  labelShared = true,
): Promise<string> {
  const { outputDir, jobId, label, index, count, contentType } = place;
  if (!labelShared) return outputPath(outputDir, jobId, label, index, count, contentType);
  for (let version = 1; version <= MOST_VERSIONS; version++) {
    const file = outputPath(outputDir, jobId, label, index, count, contentType, version);
    const holder = await store.outputAt(file);
    if (holder === undefined || (holder.key === place.key && holder.idx === index)) return file;
  }
  throw new Error(
    `every name of ${place.label} up to -v${MOST_VERSIONS} is taken in ${place.outputDir}/${place.jobId}: prune its superseded outputs`,
  );
}
