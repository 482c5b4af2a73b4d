import path from "node:path";
import {
  bringApprovedHere,
  ExitCode,
  reviewedRun,
  type StoreFlags,
  storeAt,
  withExistingStore,
} from "../api/index.js";
import { commandIo, resolveFromCwd } from "../core/io.js";
import { plural } from "../core/words.js";
import { err, out } from "./output.js";

/**
 * `gwrun export --approved DIR [run]`: the run's approved outputs with their sidecars into a
 * delivery folder, and review.csv beside them (the latest run by default).
 */
export async function exportRun(
  ref: string | undefined,
  flags: StoreFlags & { approved: string; force?: boolean },
): Promise<ExitCode> {
  const { exportApproved, REVIEW_CSV } = await import("../postprocess/index.js");
  const at = storeAt(flags);
  return withExistingStore(at, async (store, located) => {
    const run = await reviewedRun(
      store,
      at.location,
      ref,
      "approved",
      `export --approved ${flags.approved}`,
    );
    // Outputs made on a fleet's other host are read back from object storage.
    await bringApprovedHere(store, run, commandIo().env);
    const dir = resolveFromCwd(flags.approved);
    const exported = await exportApproved(store, run, {
      dir,
      project: located.project,
      force: flags.force === true,
    });
    for (const file of exported.files) out(path.join(dir, file));
    if (!exported.refused.some((refused) => refused.what === REVIEW_CSV)) out(exported.csv);
    out(
      `run ${run.id} (${run.name}): ${plural(exported.files.length, "approved output")} exported to ${dir}`,
    );
    for (const { what, reason } of exported.refused) err(`gwrun: not exported: ${what}: ${reason}`);
    return exported.refused.length === 0 ? ExitCode.Ok : ExitCode.Failed;
  });
}
