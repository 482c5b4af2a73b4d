import path from "node:path";
import type { ReportOf } from "../postprocess/index.js";

import { ExitCode } from "./exit-codes.js";
import { out } from "./output.js";
import { findRun, storeAt, withExistingStore } from "./store.js";

/**
 * `gwrun report [run]`: rebuilds the output folder's results.jsonl and index.html from the
 * store (the latest run's folder by default); with a run, also writes that run's own subset
 * beside them as run-<id>.jsonl and run-<id>.html.
 */
export async function reportRun(
  ref: string | undefined,
  flags: { db?: string },
): Promise<ExitCode> {
  const { writeReport } = await import("../postprocess/index.js");
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const run = await findRun(store, at.location, ref);
    const shown = (file: string) => path.relative(process.cwd(), file) || file;
    const records: ReportOf[] = ref === undefined ? ["folder"] : ["folder", "run"];
    for (const of of records) {
      const report = await writeReport(store, run, of);
      const title = of === "folder" ? `folder ${shown(run.output_dir)}` : `run ${run.id}`;
      out(shown(report.gallery));
      out(shown(report.results));
      out(`${title}: ${report.outputs} outputs, ${report.failures} failures`);
    }
    return ExitCode.Ok;
  });
}
