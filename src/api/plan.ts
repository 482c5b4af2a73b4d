import { existsSync } from "node:fs";
import path from "node:path";
import { type CheckedManifest, checkedJobs } from "../families/index.js";
import { outputDirOf } from "../manifest/index.js";
import {
  dependantTemplates,
  diffPlan,
  type Plan,
  PlanCounter,
  type PlanDiff,
  taskPages,
  upstreamsPicked,
} from "../plan/index.js";
import { type LoadedManifest, loadManifest, type ManifestOptions } from "./manifest.js";
import { isPostgres, projectOf, type StoreFlags, storeAt, storeName, withStore } from "./store.js";

/**
 * What a run of a manifest would do against the store, per job — new (paid for), done, in
 * flight, failed or expired — with the cost of only what is new: `gwrun plan`, and the API's.
 */

export interface PlanOptions extends ManifestOptions, StoreFlags {
  /** As `run --force` would: tasks done count as new. */
  force?: boolean;
}

export interface PlanOutcome {
  /** The manifest as checked: its diagnostics; when invalid, nothing was planned. */
  manifest: LoadedManifest;
  /** The plan; undefined for an invalid manifest. */
  plan: PlanDiff | undefined;
  /** The store compared against (as messages name it), and whether it exists yet. */
  store: { name: string; exists: boolean };
}

/** Plans the manifest in `file`; never creates a store: without one, everything is new. */
export async function planManifestAt(
  file: string,
  options: PlanOptions = {},
): Promise<PlanOutcome> {
  const manifest = await loadManifest(file, options, "templates");
  const project = projectOf(file);
  const at = storeAt(options, project);
  const exists = isPostgres(at.location) || existsSync(at.location);
  const store = { name: storeName(at.location), exists };
  const { checked } = manifest;
  const { settings, moment } = checked.expanded;
  if (!checked.valid || settings === undefined) return { manifest, plan: undefined, store };
  const run = await planOf(file, checked);
  const diffOptions = {
    now: Date.now(),
    force: options.force === true,
    templates: dependantTemplates(checked.jobs),
    outputDir: path.resolve(project, outputDirOf(settings, moment)),
    publishedTo: settings.output.publish.map((target) => target.url),
  };
  const plan = exists
    ? await withStore(at, (opened) => diffPlan(run, opened, diffOptions), { migrate: false })
    : await diffPlan(run, undefined, diffOptions);
  return { manifest, plan, store };
}

/** The plan of a checked manifest, its expansions made again one at a time for its tasks. */
async function planOf(file: string, checked: CheckedManifest): Promise<Plan> {
  const { settings, moment, specs } = checked.expanded;
  const counter = new PlanCounter(upstreamsPicked(specs));
  async function* counted() {
    for await (const job of checkedJobs(checked)) {
      counter.add(job);
      yield job;
    }
  }
  const tasks: Plan["tasks"] = [];
  for await (const page of taskPages(counted())) for (const task of page) tasks.push(task);
  return { ...counter.plan(file, settings as NonNullable<typeof settings>, moment), tasks };
}
