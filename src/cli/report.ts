import path from "node:path";

import { ExitCode } from "./exit-codes.js";
import { out } from "./output.js";
import { dbPath, findRun, withExistingStore } from "./store.js";

/** `gwrun report [run]`: rebuilds a run's results.jsonl and index.html from the store. */
export async function reportRun(
  ref: string | undefined,
  flags: { db?: string },
): Promise<ExitCode> {
  const { writeReport } = await import("../postprocess/index.js");
  const db = dbPath(flags);
  return withExistingStore(db, async (store) => {
    const run = await findRun(store, db, ref);
    const written = await writeReport(store, run);
    const shown = (file: string) => path.relative(process.cwd(), file) || file;
    out(`${shown(written.gallery)}`);
    out(`${shown(written.results)}`);
    out(`run ${run.id}: ${written.outputs} outputs, ${written.failures} failures`);
    return ExitCode.Ok;
  });
}
