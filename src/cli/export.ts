import path from "node:path";
import { plural } from "../core/words.js";
import { ExitCode } from "./exit-codes.js";
import { out } from "./output.js";
import { findRun, type StoreFlags, storeAt, withExistingStore } from "./store.js";

/**
 * `gwrun export --approved DIR [run]`: the run's approved outputs with their sidecars into a
 * delivery folder, and review.csv beside them (the latest run by default).
 */
export async function exportRun(
  ref: string | undefined,
  flags: StoreFlags & { approved: string },
): Promise<ExitCode> {
  const { exportApproved } = await import("../postprocess/index.js");
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const run = await findRun(store, at.location, ref);
    const dir = path.resolve(flags.approved);
    const exported = await exportApproved(store, run, dir);
    for (const file of exported.files) out(path.join(dir, file));
    out(exported.csv);
    out(`run ${run.id}: ${plural(exported.files.length, "approved output")} exported to ${dir}`);
    return ExitCode.Ok;
  });
}
