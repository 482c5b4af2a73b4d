import path from "node:path";
import {
  ExitCode,
  exportRunOutputs,
  findRun,
  reviewedRun,
  type StoreFlags,
  storeAt,
  withExistingStore,
} from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { resolveFromCwd } from "../core/io.js";
import { plural } from "../core/words.js";
import { err, out } from "./output.js";

/**
 * `gwrun export --approved DIR [run]` (or `--selected DIR`): the run's approved (or selected) outputs with their sidecars into a
 * delivery folder, and review.csv beside them (the latest run by default).
 */
export async function exportRun(
  ref: string | undefined,
  flags: StoreFlags & { approved?: string; selected?: string; force?: boolean },
): Promise<ExitCode> {
  const { REVIEW_CSV } = await import("../postprocess/index.js");
  const folder = deliveryFolder(flags);
  const at = storeAt(flags);
  return withExistingStore(at, async (store, located) => {
    const run =
      flags.approved === undefined
        ? await findRun(store, at.location, ref)
        : await reviewedRun(store, at.location, ref, "approved", `export --approved ${folder}`);
    const dir = resolveFromCwd(folder);
    const exported = await exportRunOutputs(store, run, {
      dir,
      project: located.project,
      force: flags.force === true,
      selected: flags.selected !== undefined,
    });
    for (const file of exported.files) out(path.join(dir, file));
    if (!exported.refused.some((refused) => refused.what === REVIEW_CSV)) out(exported.csv);
    out(
      `run ${run.id} (${run.name}): ${plural(exported.files.length, flags.selected === undefined ? "approved output" : "selected output")} exported to ${dir}`,
    );
    for (const { what, reason } of exported.refused) err(`gwrun: not exported: ${what}: ${reason}`);
    return exported.refused.length === 0 ? ExitCode.Ok : ExitCode.Failed;
  });
}

/** The delivery folder: `--approved DIR` or `--selected DIR`, exactly one of them. */
function deliveryFolder(flags: { approved?: string; selected?: string }): string {
  const folder = flags.approved ?? flags.selected;
  if (folder === undefined || (flags.approved !== undefined && flags.selected !== undefined))
    throw new GwError(
      ErrorCode.Usage,
      "export takes one of --approved DIR (what people approved) or --selected DIR (the best takes select: picked)",
    );
  return folder;
}
