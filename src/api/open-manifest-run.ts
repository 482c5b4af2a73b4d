import path from "node:path";
import { resolveFromCwd } from "../core/io.js";
import { fleetFor, isFleetStore, readyForWorkers } from "../fleet/index.js";
import {
  hasMaskedKey,
  isSimulator,
  type ManifestSettings,
  maskLiteralKey,
  outputDirOf,
  whySimulator,
} from "../manifest/index.js";
import { dependantRules, dependantTemplates } from "../plan/index.js";
import { openRun, Releasers, type RunSession, rowSourcesOf, StorageRefused } from "../run/index.js";
import type { PgStore, Store } from "../store/index.js";
import { linePrefix } from "../ui/index.js";
import { ExitCode } from "./exit-codes.js";
import type { HeldManifest } from "./held-manifest.js";
import { feedsOf } from "./only.js";
import { recordInitialTasks } from "./record-plan.js";
import type { Executed, RunFlags, RunHooks } from "./run-hooks.js";
import { defaultStore, openStoreAt, projectOf, storeAt, storeName } from "./store.js";

/**
 * A checked manifest's run opened (its store, storage and gateway, where it runs, who works
 * it) and recorded (the run, its plan): the first half of `gwrun run`, before it is driven.
 */

/** A checked manifest's run, as opened: where it runs, and what it works with. */
export interface Opened {
  file: string;
  manifest: HeldManifest;
  settings: ManifestSettings;
  store: Store;
  session: RunSession;
  outputDir: string;
  baseUrl: string;
  /** The fleet's store when a fleet works the run; undefined: this process alone. */
  fleet: PgStore | undefined;
  feeds: Awaited<ReturnType<typeof feedsOf>>;
  /** The store, when hints must name it (a command started here would not find it). */
  dbToName: string | undefined;
}

/**
 * Opens the run of a checked manifest: its store, storage and gateway; refused (exit 2,
 * nothing recorded) when its object storage is not usable.
 */
export async function openManifestRun(
  file: string,
  manifest: HeldManifest,
  flags: RunFlags,
  hooks: RunHooks,
): Promise<Opened | Executed> {
  const settings = manifest.checked.expanded.settings as ManifestSettings;
  const { moment } = manifest.checked.expanded;
  const { source } = manifest.checked;
  const project = projectOf(file);
  const outputDir = path.resolve(project, outputDirOf(settings, moment));
  const at = storeAt(flags, project);
  const releasers = new Releasers();
  const store = releasers.push(await openStoreAt(at), (opened) => opened.close());
  const baseUrl = flags.baseUrl ?? settings.gateway.baseUrl;
  // A schedule left on the simulator (a variable its cron job lacks) is told at every tick.
  if (moment.tick !== undefined && isSimulator(baseUrl))
    hooks.say(
      `${linePrefix(true)}warning: tick ${moment.tickLabel} of ${settings.name} runs against the built-in simulator (${whySimulator(source, hooks.env, flags.baseUrl)}): stand-in outputs, no real money`,
    );
  let session: RunSession;
  try {
    const feeds = await feedsOf(store, outputDir, manifest.jobs);
    // A fleet works the run, or (the simulator in this process) this process alone.
    const fleet = fleetFor(store, baseUrl, flags.detach === true);
    try {
      // Object storage that refuses (credentials, a bucket) is found out before anything is paid.
      session = await openRun({
        settings,
        baseUrl,
        keyMasked: hasMaskedKey(source),
        env: hooks.env,
        checkStorage: { store, outputDir },
        releasers,
        tell: (line) => hooks.say(`${linePrefix(false)}${line}`),
      });
    } catch (error) {
      if (!(error instanceof StorageRefused)) throw error;
      hooks.say(`${linePrefix(true)}${error.message}; nothing was submitted`);
      return { exit: ExitCode.Invalid, runId: undefined };
    }
    // Hints name the database only when a command started here would not find it.
    const dbToName = at.location === defaultStore() ? undefined : storeName(at.location);
    return { file, manifest, settings, store, session, outputDir, baseUrl, fleet, feeds, dbToName };
  } catch (error) {
    await releasers.release();
    throw error;
  }
}

/**
 * The run recorded: the one named (resume, retry), a scheduled tick's own, or a new one, with
 * its plan (the tasks, page by page) and what each `from:` job makes per upstream output.
 */
export async function recordRun(opened: Opened, runId: number | undefined): Promise<number> {
  const { store, settings, manifest, outputDir, session } = opened;
  const { moment } = manifest.checked.expanded;
  const now = Date.now();
  // A scheduled tick has one run: running the tick again continues it.
  const id =
    runId ??
    (moment.tick === undefined
      ? undefined
      : (await store.runOfTick(settings.name, moment.tick))?.id) ??
    (await store.createRun({
      name: settings.name,
      manifest_path: resolveFromCwd(opened.file),
      // Kept for `gwrun resume`, without a key written in it.
      manifest_text: maskLiteralKey(manifest.checked.source),
      base_url: opened.baseUrl,
      output_dir: outputDir,
      started_at: now,
      tick: moment.tick,
      publish_to: session.targets.map((target) => target.url),
      unknown_cost: settings.limits.unknownCost,
    }));
  // Kept for `gwrun resume`, which goes on with the rows this run read of `rows:` URLs.
  const rows = rowSourcesOf(manifest.checked.source);
  if (rows.length > 0) await store.recordRowSources(id, rows);
  await recordPlan(store, id, manifest, opened.fleet, outputDir, now);
  // Kept so that `gwrun status` counts the dependants still to come as the run does.
  await store.setDependantRules(
    id,
    JSON.stringify(dependantRules(dependantTemplates(manifest.jobs))),
  );
  return id;
}

/** The plan is what runs: its tasks are recorded page by page (`recordInitialTasks`). */
async function recordPlan(
  store: Store,
  runId: number,
  manifest: HeldManifest,
  fleet: PgStore | undefined,
  outputDir: string,
  now: number,
): Promise<void> {
  if (fleet !== undefined) await readyForWorkers(fleet, runId, outputDir, manifest.checked);
  else if (isFleetStore(store)) await store.fleet.workAlone(runId);
  const chosen = new Set(manifest.jobs.map(({ job }) => job.spec.id));
  await recordInitialTasks(store, runId, manifest.checked, chosen, now);
}
