import { setMaxListeners } from "node:events";
import { commandIo } from "../core/io.js";
import { CLAIM_OWNER } from "../core/process.js";
import { type EngineEvent, openRunContext } from "../engine/index.js";
import { type CheckedManifest, checkManifestText } from "../families/index.js";
import { hasMaskedKey, perSecond, resolvedManifest } from "../manifest/index.js";
import { engineOptions, openRun, Releasers, type RunWork, recordedRows } from "../run/index.js";
import { inProject, locatedRun, type PgStore, projectPaths, type TaskRow } from "../store/index.js";
import { takeOnDependant } from "./endings.js";
import type { FleetRun, OpenRun } from "./fleet-run.js";
import { checkMarker, writeMarker } from "./output-marker.js";
import { openFleetPace } from "./pace.js";
import { runProject } from "./run-project.js";
import { fleetWrites } from "./writes.js";

/**
 * A run opened for a fleet's worker: its engine parts with fleet-wide claims and receipts and
 * the account's shared pace, from the manifest the run recorded.
 */

/** Opens a run for this process: its engine parts, with fleet-wide claims and receipts. */
export async function openFleetRun(
  store: PgStore,
  work: RunWork,
  owner = CLAIM_OWNER,
  releasers = new Releasers(),
): Promise<FleetRun> {
  const abort = releasers.push(new AbortController(), (controller) => controller.abort());
  // Each of a worker's jobs under way waits on it (retries, turns at the pace).
  setMaxListeners(0, abort.signal);
  const options = await engineOptions(work);
  // One pace for every worker on the account, timed by the database's clock.
  const ceiling = perSecond(work.settings.limits.submitRate);
  const pace = releasers.push(
    await openFleetPace(store, options.clock, work.baseUrl, ceiling),
    (opened) => opened.close(),
  );
  const claimedAhead = new Map<string, TaskRow>();
  // Read once: a budget set while the run goes on holds from its next run.
  const budgets = (await store.budgets()).filter(
    (budget) => budget.scope === "" || budget.scope === work.baseUrl,
  );
  const context = await openRunContext(options, abort.signal, {
    pace,
    writes: (opened) => fleetWrites(store, opened, { claimedAhead, owner, budgets }),
    takeOnDependant,
  });
  return {
    id: work.runId,
    context,
    account: work.baseUrl,
    halt: undefined,
    claimedAhead,
    owner,
    releasers,
    budgets,
  };
}

/**
 * Opens a recorded run from the manifest it recorded (no file, no environment but the key).
 * `record` keeps
 * paths as recorded: each run is worked in its project (`runProject`), with a store of its own
 * that gives them as that project's.
 */
export function storedRunOpener(
  record: PgStore,
  workerProject: string,
  emit: (event: EngineEvent) => void,
  owner = CLAIM_OWNER,
): OpenRun {
  return async (recorded) => {
    const paths = projectPaths(runProject(recorded, workerProject));
    const store = inProject(record, paths.root);
    const row = locatedRun(paths, recorded);
    const at = row.tick ?? row.started_at;
    const text = row.resolved_manifest ?? row.manifest_text;
    const env = commandIo().env;
    // Held as a run keeps it (a job's first expansion, and what dependants are made from):
    // the worker reads the run's tasks from the store.
    // The rows the run read of `rows:` URLs, as it recorded them: every worker reads the same.
    const rows = await recordedRows(record, row.id);
    const checked = await checkManifestText(text, row.manifest_path, env, at, {
      hold: "templates",
      rows,
    });
    const settings = checked.expanded.settings;
    if (!checked.valid || settings === undefined)
      throw new Error(`the manifest run ${row.id} recorded does not check on this host`);
    // Outputs published to object storage need no shared folder: each host keeps its own.
    if (settings.output.publish.length === 0)
      checkMarker(row.output_dir, await store.fleet.storeId());
    const session = await openRun({
      settings,
      baseUrl: row.base_url,
      keyMasked: hasMaskedKey(checked.source),
      env,
    });
    try {
      const work = {
        store,
        gateway: session.gateway,
        runId: row.id,
        settings,
        jobs: checked.jobs,
        outputDir: row.output_dir,
        baseUrl: row.base_url,
        force: false,
        emit,
        storage: session.storage,
      };
      const run = await openFleetRun(store, work, owner, session.releasers);
      // The run is held by its writes: it is completed in place, not copied.
      return { ...run, paths };
    } catch (error) {
      await session.release();
      throw error;
    }
  };
}

/**
 * What a worker needs to open a run, in place before its tasks (and so their jobs) are
 * recorded: the manifest as checked, for workers to run without the file or its environment,
 * and the marker by which a host shows it sees the shared output folder (none where outputs
 * are published to object storage: each host then keeps a folder of its own).
 */
export async function readyForWorkers(
  store: PgStore,
  runId: number,
  outputDir: string,
  checked: CheckedManifest,
): Promise<void> {
  await store.fleet.setResolvedManifest(runId, resolvedManifest(checked.source));
  if (checked.expanded.settings?.output.publish.length === 0)
    writeMarker(outputDir, await store.fleet.storeId());
}
