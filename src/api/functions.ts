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

/** Where the record is: as `--db` / `--store` (default: GWRUN_STORE, GWRUN_DB, data/gwrun.db). */
export interface StoreOptions {
  /** A SQLite state database file. */
  db?: string;
  /** A PostgreSQL connection string (its password may come from ~/.pgpass or PGPASSWORD). */
  store?: string;
  /**
   * The project folder the record's paths are relative to, for the functions that name no
   * manifest (default: the folder holding `data/gwrun.db`, else the working folder's project).
   */
  project?: string;
}

export interface RunOptions extends StoreOptions, Omit<ManifestOptions, "at"> {
  /** Redo tasks already done. */
  force?: boolean;
  /** Run only these job ids. */
  only?: readonly string[] | string;
  /** Overrides the manifest's gateway base URL ("sim": the built-in simulator). */
  baseUrl?: string;
  /** Run as of this time: a scheduled manifest runs the tick due then (ISO 8601 text, ms or a Date). */
  at?: Date | number | string;
  /** On a PostgreSQL store: record the run and leave it to the fleet's workers. */
  detach?: boolean;
  /** Aborting it stops the run gracefully, as `handle.stop()` does. */
  signal?: AbortSignal;
}

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

/** Runs the manifest in `file`: await it for the outcome, `for await` it for the events. */
export function run(file: string, options: RunOptions = {}): RunHandle {
  return new RunHandle(
    (hooks) => runManifestWith(file, flagsOf(options), hooks),
    envOf(options),
    options.signal,
  );
}

/** Continues a recorded run (`runId`, default the latest) from the manifest kept with it. */
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

/** What a run of the manifest would do against the store; never creates a store. */
export function plan(file: string, options: PlanOptions = {}): Promise<PlanOutcome> {
  return planManifestAt(file, options);
}

/** How a run (default the latest) stands: what `gwrun status --json` prints. */
export function status(runId?: number, options: StoreOptions = {}): Promise<RunStatus> {
  const at = storeAt(options);
  return withExistingStore(at, async (store) =>
    statusOf(store, await findRun(store, at.location, refOf(runId))),
  );
}

/**
 * What a run (default: every run in the store) paid, by job, model, family or day, with the
 * estimates beside it: what `gwrun cost --json` prints, with the run and grouping.
 */
export function cost(
  runId?: number,
  options: StoreOptions & { by?: CostGrouping } = {},
): Promise<CostOutcome> {
  const at = storeAt(options);
  return withExistingStore(at, (store) =>
    costOf(store, at.location, refOf(runId), options.by ?? "job"),
  );
}

/** The latest runs, newest first (at most `limit`): what `gwrun runs --json` prints. */
export function runs(options: StoreOptions & { limit?: number } = {}): Promise<RunListing[]> {
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
 * const store = await openStore({ db: "data/gwrun.db" });
 * try { console.log(await store.latestRun()); } finally { await store.close(); }
 */
export async function openStore(options: StoreOptions = {}): Promise<RecordReader> {
  return openStoreAt(storeAt(options as StoreFlags));
}

export type { RunRow };
