import { existsSync } from "node:fs";
import { ExitCode, findRun, storeAt, withExistingStore } from "../api/index.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { shownFromCwd } from "../core/io.js";
import { isBelow } from "../core/safe-files.js";
import type { ReportOf } from "../postprocess/index.js";
import { out } from "./output.js";

/**
 * `gwrun report [run]`: rebuilds the output folder's results.jsonl and index.html from the
 * store (the latest run's folder by default); with a run, also writes that run's own subset
 * beside them as run-<id>.jsonl and run-<id>.html.
 */
export async function reportRun(
  ref: string | undefined,
  flags: { db?: string },
): Promise<ExitCode> {
  const { writeReports } = await import("../postprocess/index.js");
  const at = storeAt(flags);
  return withExistingStore(at, async (store, located) => {
    const run = await findRun(store, at.location, ref);
    // A folder recorded outside this project (an absolute output.dir) is written only where
    // it still is: a record from elsewhere never makes folders on this machine.
    if (!isBelow(located.project, run.output_dir) && !existsSync(run.output_dir))
      throw new GwError(
        ErrorCode.Usage,
        `run ${run.id}'s output folder ${run.output_dir} lies outside this project and is not here: nothing was written`,
        { hint: "run gwrun report in the project the run belongs to, or where that folder is" },
      );
    const records: ReportOf[] = ref === undefined ? ["folder"] : ["folder", "run"];
    const written = await writeReports(store, run, records);
    for (const [i, of] of records.entries()) {
      const report = written[i] as (typeof written)[number];
      const title = of === "folder" ? `folder ${shownFromCwd(run.output_dir)}` : `run ${run.id}`;
      out(shownFromCwd(report.gallery));
      out(shownFromCwd(report.results));
      out(`${title}: ${report.outputs} outputs, ${report.failures} failures`);
    }
    return ExitCode.Ok;
  });
}
