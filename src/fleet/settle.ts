import {
  EXIT_BY_END,
  notifyRunEnd,
  type RunEnd,
  runResult,
  STATUS_BY_END,
} from "../engine/index.js";
import { notifyTargetsOf, publishTargetsOfRun } from "../manifest/index.js";
import type { FleetRunRow, PgStore, RunRow } from "../store/index.js";

/**
 * Records a settled run's ending, writes its report and tells its `notify:` webhooks, once
 * across the fleet: true for the process that did. The webhooks are read from the manifest as
 * written with this host's environment (the fleet's copy holds none); `tell` hears trouble.
 */
export async function settleFleetRun(
  store: PgStore,
  row: FleetRunRow,
  tell: (line: string) => void,
): Promise<boolean> {
  const halt = (row.halt ?? undefined) as RunEnd | undefined;
  const result = await runResult(store, row.id, halt, await store.fleet.unknownSubmitsOf(row.id));
  const end = { status: STATUS_BY_END[result.end], exitCode: EXIT_BY_END[result.end] };
  if (!(await store.fleet.settleRun(row.id, { ...end, now: Date.now() }))) return false;
  const { writeReport } = await import("../postprocess/index.js");
  const run = (await store.run(row.id)) as RunRow;
  await writeReport(store, run);
  await publishSettled(store, run, tell);
  const { targets, problems } = notifyTargetsOf(run.manifest_text, run.manifest_path, process.env);
  for (const problem of problems) tell(`run ${row.id}: ${problem}; nothing posted`);
  await notifyRunEnd(store, row.id, result, targets, {
    tell: (message) => tell(`run ${row.id}: ${message}`),
  });
  return true;
}

/**
 * What the run's uploads missed, sent from this host's folder, then the run's record. The
 * run's ending stands as settled: what is still missing is told, for `gwrun publish`.
 */
async function publishSettled(
  store: PgStore,
  run: RunRow,
  tell: (line: string) => void,
): Promise<void> {
  const targets = publishTargetsOfRun(run, process.env);
  if (targets.length === 0) return;
  const publish = await import("../publish/index.js");
  const storage = publish.openObjectStorage(process.env);
  // Settling waits on storage no longer than a run's end may.
  publish.withinEnd(storage);
  try {
    const news = await publish.publishRunOutputs(store, run, storage, targets);
    for (const line of news.lines) tell(`run ${run.id}: ${line}`);
    for (const line of await publish.publishFolderRecord(run.output_dir, storage, targets))
      tell(`run ${run.id}: ${line}`);
  } catch (error) {
    tell(`run ${run.id}: not published: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    storage.client.destroy();
  }
}
