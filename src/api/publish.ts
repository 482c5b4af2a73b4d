import { fileMatches } from "../core/output-files.js";
import { publishTargetsOfRun } from "../manifest/index.js";
import type { ObjectStorage } from "../publish/index.js";
import { openStorage } from "../run/index.js";
import type { OutputRow, RunRow, Store } from "../store/index.js";
import { ExitCode } from "./exit-codes.js";
import { findRun, type StoreFlags, storeAt, withExistingStore } from "./store.js";

/**
 * Object storage around a run: opened and checked before anything is paid for, what the run
 * left unpublished sent as it ends, and `gwrun publish` for what is missing later.
 */

/**
 * `gwrun publish [run]`: every done output of the run checked in each target of its manifest's
 * `output.publish` and sent where it is missing, then the folder's record.
 */
export async function publishMissing(
  ref: string | undefined,
  flags: StoreFlags,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
): Promise<ExitCode> {
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const run = await findRun(store, at.location, ref);
    const targets = publishTargetsOfRun(run, env);
    if (targets.length === 0) {
      say(`run ${run.id}'s manifest has no output.publish: nothing to publish`);
      return ExitCode.Invalid;
    }
    let storage: ObjectStorage;
    try {
      storage = await openStorage(targets, env, { store, outputDir: run.output_dir }, say);
    } catch (error) {
      say(error instanceof Error ? error.message : String(error));
      return ExitCode.Invalid;
    }
    const { publishRunOutputs, publishFolderRecord } = await import("../publish/index.js");
    try {
      const news = await publishRunOutputs(store, run, storage, targets, {
        verify: true,
        listAll: true,
      });
      for (const line of news.lines) say(line);
      const problems = await publishFolderRecord(run.output_dir, storage, targets);
      for (const line of problems) say(line);
      return news.complete && problems.length === 0 ? ExitCode.Ok : ExitCode.Failed;
    } finally {
      storage.client.destroy();
    }
  });
}

/**
 * The approved outputs of a run whose files this host lacks (a fleet's other host made them),
 * fetched from the objects they were published as, so an export holds them; how many.
 */
export async function bringApprovedHere(
  store: Store,
  run: RunRow,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const approved = (await store.reviewsOf({ run: run.id })).filter(
    (review) => review.decision === "approved",
  );
  const missing: OutputRow[] = [];
  for (const key of new Set(approved.map((review) => review.job_key)))
    for (const output of await store.outputsOf(key))
      if (
        approved.some((review) => review.job_key === key && review.idx === output.idx) &&
        !(await fileMatches(output.path, output.bytes, output.sha256))
      )
        missing.push(output);
  if (missing.length === 0) return 0;
  const publish = await import("../publish/index.js");
  const storage = publish.openObjectStorage(env);
  try {
    return await publish.fetchMissing({ store, storage }, missing, run.output_dir);
  } finally {
    storage.client.destroy();
  }
}
