import type { CostGrouping, RunRow, Store } from "../store/index.js";
import { type CostOutcome, costOf } from "./cost.js";
import type { RunFlags } from "./execute.js";
import { envOf, type ManifestOptions } from "./manifest.js";
import { type PlanOptions, type PlanOutcome, planManifestAt } from "./plan.js";
import { RunHandle } from "./run-handle.js";
import { type RetryChoice, resumeRunWith, retryRunWith, runManifestWith } from "./runs.js";
import { latestRuns, type RunListing, type RunStatus, statusOf } from "./status.js";
import { findRun, openStoreAt, type StoreFlags, storeAt, withExistingStore } from "./store.js";

/**
 * gwrun's functions for Node programs: the same runs, plans and records as the command line,
 * with results as values and a run's events as an async iterator, never printed.
 */

/**
 * Where the record is, as `--db` / `--store`: give one of `db` and `store`, not both. Without
 * either: GWRUN_STORE, then GWRUN_DB, then `data/gwrun.db` of the project folder.
 */
export interface StoreOptions {
  /**
   * A SQLite state database file (a relative path is taken from the working folder).
   * @default process.env.GWRUN_DB, else `data/gwrun.db` of the project folder (when neither `store` nor GWRUN_STORE is set)
   */
  db?: string;
  /**
   * A PostgreSQL connection string, without a password (one in it is refused): keep that in
   * ~/.pgpass or PGPASSWORD.
   * @default process.env.GWRUN_STORE (which may hold a password), when `db` is not given
   */
  store?: string;
  /**
   * The project folder the record's paths are relative to, for the functions that name no
   * manifest (`status`, `cost`, `runs`, `resume`, `retry`, `openStore`); a manifest names its own.
   * @default the first of the `db` file's project, the working folder's and the one the latest run was started in where that run's output folder is found
   */
  project?: string;
}

/** The options of `run` (and, but `at`, of `resume` and `retry`): as `gwrun run`'s flags. */
export interface RunOptions extends StoreOptions, Omit<ManifestOptions, "at" | "text"> {
  /**
   * Redo tasks already done, as `--force`.
   * @default false
   */
  force?: boolean;
  /**
   * Run only these job ids (an array, or comma-separated); an unknown id is an error.
   * @default every job
   */
  only?: readonly string[] | string;
  /**
   * Overrides the manifest's gateway base URL ("sim": the built-in simulator).
   * @default the manifest's `gateway.base_url` ("sim" when it sets none)
   */
  baseUrl?: string;
  /**
   * Run as of this time: a scheduled manifest runs the tick due then (ISO 8601 text, ms or a
   * Date).
   * @default Date.now()
   */
  at?: Date | number | string;
  /**
   * On a PostgreSQL store: record the run and leave it to the fleet's workers.
   * @default false
   */
  detach?: boolean;
  /** Aborting it stops the run gracefully, as `handle.stop()` does. */
  signal?: AbortSignal;
}

/**
 * The options of `retry`: those of `run` but `at`, and which tasks to put back (at least one
 * of `failed`, `expired`, `held`, `stuck` and `rejected` must be true).
 */
export type RetryOptions = Omit<RunOptions, "at"> & RetryChoice;

/** The command line's flags for these options; the key stays in the environment given. */
function flagsOf(options: RunOptions | RetryOptions): RunFlags {
  const at = "at" in options ? options.at : undefined;
  return {
    db: options.db,
    store: options.store,
    project: options.project,
    force: options.force,
    only: typeof options.only === "string" ? options.only : options.only?.join(","),
    baseUrl: options.baseUrl,
    at: at === undefined ? undefined : typeof at === "string" ? at : new Date(at).toISOString(),
    detach: options.detach,
  };
}

/**
 * Runs the manifest in `file`: await it for the outcome, `for await` it for the events.
 * @example
 * ```ts
 * const handle = run("manifests/campaign.yaml", { apiKey: process.env.GW_API_KEY });
 * for await (const event of handle) if (event.type === "task:done") console.log(event.label);
 * const { exitCode, result } = await handle;
 * ```
 */
export function run(file: string, options: RunOptions = {}): RunHandle {
  return new RunHandle(
    (hooks) => runManifestWith(file, flagsOf(options), hooks),
    envOf(options),
    options.signal,
  );
}

/**
 * Continues a recorded run (`runId`, default the latest) from the manifest kept with it.
 * @example
 * ```ts
 * const { exitCode, runId, result } = await resume(); // the latest run
 * ```
 */
export function resume(runId?: number, options: Omit<RunOptions, "at"> = {}): RunHandle {
  return new RunHandle(
    (hooks) => resumeRunWith(refOf(runId), flagsOf(options), hooks),
    envOf(options),
    options.signal,
  );
}

/**
 * Puts a run's failed, expired, held, stuck or review-rejected tasks back (at least one kind
 * must be chosen) and continues it; with none to put back, nothing is submitted.
 * @example
 * ```ts
 * // The latest run's failed and expired tasks, once more.
 * const { exitCode, result } = await retry(undefined, { failed: true, expired: true });
 * ```
 */
export function retry(runId: number | undefined, options: RetryOptions): RunHandle {
  const choice: RetryChoice = {
    failed: options.failed,
    expired: options.expired,
    held: options.held,
    stuck: options.stuck,
    rejected: options.rejected,
  };
  return new RunHandle(
    (hooks) => retryRunWith(refOf(runId), { ...flagsOf(options), ...choice }, hooks),
    envOf(options),
    options.signal,
  );
}

function refOf(runId: number | undefined): string | undefined {
  return runId === undefined ? undefined : String(runId);
}

/**
 * What a run of the manifest would do against the store; never creates a store.
 * @example
 * ```ts
 * const planned = await plan("manifests/campaign.yaml");
 * if (planned.plan !== undefined)
 *   console.log(`new: ${planned.plan.totals.status.new}, cost: ${planned.plan.totals.newCost}`);
 * ```
 */
export function plan(file: string, options: PlanOptions = {}): Promise<PlanOutcome> {
  return planManifestAt(file, options);
}

/**
 * How a run (default the latest) stands: what `gwrun status --json` prints.
 * @example
 * ```ts
 * const record = await status(); // the latest run
 * console.log(record.run.status, record.states, record.spent);
 * ```
 */
export function status(runId?: number, options: StoreOptions = {}): Promise<RunStatus> {
  const at = storeAt(options);
  return withExistingStore(at, async (store) =>
    statusOf(store, await findRun(store, at.location, refOf(runId))),
  );
}

/**
 * What a run (default: every run in the store) paid, by job, model, family or day, with the
 * estimates beside it: what `gwrun cost --json` prints, with the run and grouping.
 * @example
 * ```ts
 * const paid = await cost(undefined, { by: "model" }); // every run, by model
 * for (const group of paid.groups) console.log(group.key, group.spent, group.estimate);
 * ```
 */
export function cost(
  runId?: number,
  options: StoreOptions & {
    /**
     * How to group: by `job`, `model`, `family` or `day` (UTC, of completion).
     * @default "job"
     */
    by?: CostGrouping;
  } = {},
): Promise<CostOutcome> {
  const at = storeAt(options);
  return withExistingStore(at, (store) =>
    costOf(store, at.location, refOf(runId), options.by ?? "job"),
  );
}

/**
 * The latest runs, newest first (at most `limit`): what `gwrun runs --json` prints.
 * @example
 * ```ts
 * for (const listed of await runs({ limit: 10 })) console.log(listed.id, listed.name, listed.spent);
 * ```
 */
export function runs(
  options: StoreOptions & {
    /**
     * How many runs at most.
     * @default 50
     */
    limit?: number;
  } = {},
): Promise<RunListing[]> {
  return withExistingStore(storeAt(options), (store) => latestRuns(store, options.limit));
}

/**
 * What `openStore` gives a program: the record's reads (runs, tasks, outputs, reviews, costs),
 * and `close`. A run's writes keep rules a program cannot see, so they are not offered.
 */
export type RecordReader = Pick<
  Store,
  | "run"
  | "latestRun"
  | "runs"
  | "task"
  | "tasksOf"
  | "outputsOf"
  | "copiesOf"
  | "textAnswer"
  | "textAnswersOf"
  | "reviewsOf"
  | "publicationsOf"
  | "judgementsOf"
  | "summaryOf"
  | "costReport"
  | "close"
>;

/**
 * Opens the store for reading (SQLite made if missing; PostgreSQL's schema set up), paths
 * relative to the project the record belongs to. Close it when done.
 * @example
 * ```ts
 * const store = await openStore({ db: "data/gwrun.db" });
 * try {
 *   console.log(await store.latestRun());
 * } finally {
 *   await store.close();
 * }
 * ```
 */
export async function openStore(options: StoreOptions = {}): Promise<RecordReader> {
  return openStoreAt(storeAt(options as StoreFlags));
}

export type { RunRow };
