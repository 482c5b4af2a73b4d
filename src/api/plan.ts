import { existsSync } from "node:fs";
import path from "node:path";
import { type CheckedManifest, checkedJobs } from "../families/index.js";
import { outputDirOf, type PublishTarget } from "../manifest/index.js";
import {
  budgetOf,
  dependantTemplates,
  diffPlanPages,
  type PeriodPlan,
  PlanCounter,
  type PlanDiff,
  type PlannedTask,
  type PlanPages,
  type PlanStore,
  taskPages,
  upstreamsPicked,
} from "../plan/index.js";
import type { Store } from "../store/index.js";
import { budgetsFor } from "./budget.js";
import { type LoadedManifest, loadManifest, type ManifestOptions } from "./manifest.js";
import { type DoneElsewhere, doneElsewhere } from "./plan-elsewhere.js";
import { isPostgres, projectOf, type StoreFlags, storeAt, storeName, withStore } from "./store.js";

/**
 * What a run of a manifest would do against the store, per job — new (paid for), done, in
 * flight, failed or expired — with the cost of only what is new: `gwrun plan`, and the API's.
 */

export interface PlanOptions extends ManifestOptions, StoreFlags {
  /**
   * As `run --force` would: tasks done count as new.
   * @default false
   */
  force?: boolean;
  /**
   * Each planned task with its status, in the plan's order, as it is planned: the outcome's
   * `plan.tasks` is then empty, and a plan of any size is held a page at a time. Without it,
   * the tasks are collected in `plan.tasks`.
   */
  onTask?: (task: PlannedTask) => void;
}

export interface PlanOutcome {
  /** The manifest as checked: its diagnostics; when invalid, nothing was planned. */
  manifest: LoadedManifest;
  /** The plan; undefined for an invalid manifest. */
  plan: PlanDiff | undefined;
  /**
   * The store compared against (as messages name it), whether it exists yet, and where the
   * plan's new tasks are done already when that is another store (`doneElsewhere`).
   */
  store: { name: string; exists: boolean; elsewhere?: DoneElsewhere };
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
  const outputDir = path.resolve(project, outputDirOf(settings, moment));
  const tasks: PlannedTask[] = [];
  const onTask = options.onTask ?? ((task: PlannedTask) => tasks.push(task));
  const diff = (opened: PlanStore | undefined) =>
    planAgainst(file, checked, opened, { force: options.force, onTask });
  const targets = settings.output.publish;
  const plan = exists
    ? await withStore(
        at,
        async (opened) => {
          const planned = await diff(opened);
          return {
            ...planned,
            publish: await publishPlan(opened, targets, outputDir),
            periods: await periodPlans(opened, settings.gateway.baseUrl, planned),
          };
        },
        { migrate: false },
      )
    : { ...(await diff(undefined)), publish: await publishPlan(undefined, targets, "") };
  const elsewhere =
    plan.totals.status.new > 0
      ? await doneElsewhere(at, options, (other) => planAgainst(file, checked, other))
      : undefined;
  return { manifest, plan: { ...plan, tasks }, store: { ...store, elsewhere } };
}

/**
 * The plan of a checked, valid manifest against an open store (undefined: everything is new),
 * each task told to `onTask`; what `planManifestAt` tells, for a caller holding both.
 */
export function planAgainst(
  file: string,
  checked: CheckedManifest,
  store: PlanStore | undefined,
  options: { force?: boolean; onTask?: (task: PlannedTask) => void } = {},
): Promise<PlanDiff> {
  const { settings, moment } = checked.expanded;
  if (settings === undefined) throw new Error("planAgainst takes a valid manifest");
  return diffPlanPages(
    planOf(file, checked),
    store,
    {
      now: Date.now(),
      force: options.force === true,
      templates: dependantTemplates(checked.jobs),
      outputDir: path.resolve(projectOf(file), outputDirOf(settings, moment)),
      publishedTo: settings.output.publish.map((target) => target.url),
    },
    options.onTask ?? (() => {}),
  );
}

/** Each target as the run resolves it, and why a run would refuse it (`refuseHeldTargets`). */
async function publishPlan(
  store: Store | undefined,
  targets: readonly PublishTarget[],
  outputDir: string,
): Promise<NonNullable<PlanDiff["publish"]>> {
  if (targets.length === 0) return [];
  const { heldTargetsIn, heldTargetText } = await import("../publish/index.js");
  const held = store === undefined ? [] : await heldTargetsIn(store, targets, outputDir);
  return targets.map((target) => {
    const holder = held.find((one) => one.target === target.url);
    return { target: target.url, refused: holder === undefined ? null : heldTargetText(holder) };
  });
}

/** The plan of a checked manifest, its expansions made again one at a time for its tasks. */
function planOf(file: string, checked: CheckedManifest): PlanPages {
  const { settings, moment, specs } = checked.expanded;
  const counter = new PlanCounter(upstreamsPicked(specs));
  async function* counted() {
    for await (const job of checkedJobs(checked)) {
      counter.add(job);
      yield job;
    }
  }
  return {
    head: () => ({ ...counter.plan(file, settings as NonNullable<typeof settings>, moment) }),
    pages: taskPages(counted()),
  };
}

/** Each budget across runs that holds for `gateway`, with where the estimate stands against it. */
async function periodPlans(
  store: Store,
  gateway: string,
  planned: Omit<PlanDiff, "tasks">,
): Promise<PeriodPlan[]> {
  // A store made before budgets were kept has none (a plan never migrates it).
  const held = await budgetsFor(store, gateway, Date.now()).catch(() => []);
  const { spend, status } = planned.totals;
  return held.map(({ since: _since, warn_at: _warn, ...standing }) => ({
    ...standing,
    budget: budgetOf(standing.remaining, spend.low, spend.high, status.new),
  }));
}
