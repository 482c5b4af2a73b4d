import { setMaxListeners } from "node:events";
import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import { CLAIM_OWNER } from "../core/process.js";
import {
  type EngineEvent,
  EXIT_BY_END,
  openRunContext,
  type RunEnd,
  type RunResult,
  RunStart,
  runResult,
  STATUS_BY_END,
  takeOnTask,
  waitsForUpstream,
} from "../engine/index.js";

import type { CheckedManifest } from "../families/index.js";
import { checkManifestText } from "../families/index.js";
import {
  checkMarker,
  type FleetRun,
  FleetWorker,
  fleetWrites,
  followRun,
  type OpenRun,
  openFleetPace,
  runProject,
  startDependants,
  writeMarker,
} from "../fleet/index.js";
import { hasMaskedKey, perSecond, resolvedManifest } from "../manifest/index.js";
import {
  type FleetRunRow,
  inProject,
  locatedRun,
  type PgStore,
  projectPaths,
  type RunRow,
  type Store,
} from "../store/index.js";
import type { RunFlags } from "./execute.js";
import { engineOptions, openGateway, type RunWork } from "./run-setup.js";

/**
 * Runs on a PostgreSQL store are worked by a fleet: `gwrun run` records the run and its work
 * queue, works it as one of the workers, and follows it from the store until it settles;
 * `gwrun worker` works every run. Every worker opens a run from what the store recorded.
 */

/** Submit and download jobs a worker takes at once, unless told otherwise. */
export const WORKER_CONCURRENCY = 8;
export const WORKER_DOWNLOADS = 4;

/** Opens a run for this process: its engine parts, with fleet-wide claims and receipts. */
export async function openFleetRun(store: PgStore, work: RunWork): Promise<FleetRun> {
  const abort = new AbortController();
  // Each of a worker's jobs under way waits on it (retries, turns at the pace).
  setMaxListeners(0, abort.signal);
  const context = await openRunContext(await engineOptions(work), abort.signal);
  const run: FleetRun = {
    id: work.runId,
    context,
    // The in-process simulator is one process's gateway; a real one is an account.
    account: work.baseUrl === "sim" ? `sim:${process.pid}:${work.runId}` : work.baseUrl,
    halt: undefined,
    refusals: new Map(),
    close: async () => {
      abort.abort();
    },
  };
  context.writes = fleetWrites(store, context, run, CLAIM_OWNER);
  // One pace for every worker on the account, timed by the database's clock.
  const ceiling = perSecond(context.settings.limits.submitRate);
  context.pace = await openFleetPace(store, context.clock, run.account, ceiling);
  return run;
}

/**
 * Opens a recorded run from the manifest it recorded (no file, no environment but the key);
 * a run against another process's in-process simulator is not this worker's. `record` keeps
 * paths as recorded: each run is worked in its project (`runProject`), with a store of its own
 * that gives them as that project's.
 */
export function storedRunOpener(
  record: PgStore,
  workerProject: string,
  emit: (event: EngineEvent) => void,
): OpenRun {
  return async (recorded) => {
    if (recorded.base_url === "sim") return undefined;
    const paths = projectPaths(runProject(recorded, workerProject));
    const store = inProject(record, paths.root);
    const row = locatedRun(paths, recorded);
    const at = row.tick ?? row.started_at;
    const text = row.resolved_manifest ?? row.manifest_text;
    const checked = await checkManifestText(text, row.manifest_path, process.env, at);
    const settings = checked.expanded.settings;
    if (!checked.valid || settings === undefined)
      throw new Error(`the manifest run ${row.id} recorded does not check on this host`);
    checkMarker(row.output_dir, await store.fleet.storeId());
    const gateway = await openGateway(settings, row.base_url, hasMaskedKey(checked.source));
    const run = await openFleetRun(store, {
      store,
      gateway,
      runId: row.id,
      settings,
      jobs: checked.jobs,
      outputDir: row.output_dir,
      baseUrl: row.base_url,
      force: false,
      emit,
    });
    const closeRun = run.close;
    run.close = async () => {
      await closeRun();
      await gateway.close();
    };
    // The run is held by its writes: it is completed in place, not copied.
    return Object.assign(run, { paths });
  };
}

/**
 * Records a settled run's ending and writes its report, once across the fleet: true for the
 * process that did.
 */
export async function settleFleetRun(store: PgStore, row: FleetRunRow): Promise<boolean> {
  const halt = (row.halt ?? undefined) as RunEnd | undefined;
  const result = await runResult(store, row.id, halt, await store.fleet.unknownSubmitsOf(row.id));
  const end = { status: STATUS_BY_END[result.end], exitCode: EXIT_BY_END[result.end] };
  if (!(await store.fleet.settleRun(row.id, { ...end, now: Date.now() }))) return false;
  const { writeReport } = await import("../postprocess/index.js");
  await writeReport(store, (await store.run(row.id)) as RunRow);
  return true;
}

/**
 * What a worker needs to open a run, in place before its tasks (and so their jobs) are
 * recorded: the manifest as checked, for workers to run without the file or its environment,
 * and the marker by which a host shows it sees the shared output folder.
 */
export async function readyForWorkers(
  store: PgStore,
  runId: number,
  outputDir: string,
  checked: CheckedManifest,
): Promise<void> {
  await store.fleet.setResolvedManifest(runId, resolvedManifest(checked.source));
  writeMarker(outputDir, await store.fleet.storeId());
}

export interface FleetDriverOptions {
  detach: boolean;
  emit: (event: EngineEvent) => void;
  log: (line: string) => void;
}

/**
 * `gwrun run` (and resume, retry) on a fleet: takes the run's tasks on as the engine would,
 * queues its work, then works it and follows it until it settles. `stop()` halts the run's
 * submits fleet-wide; what is in flight stays recorded for `gwrun resume`.
 */
export class FleetDriver {
  readonly #store: PgStore;
  readonly #run: FleetRun;
  readonly #options: FleetDriverOptions;
  readonly #stop = new AbortController();

  constructor(store: PgStore, run: FleetRun, options: FleetDriverOptions) {
    this.#store = store;
    this.#run = run;
    this.#options = options;
  }

  stop(): void {
    this.#stop.abort();
    const message = "interrupted: no new submits; everything so far is recorded";
    this.#options.emit({ type: "run:stopping", reason: "interrupted", message });
    this.#store.fleet.haltRun(this.#run.id, "interrupted", message).catch(() => {});
  }

  /**
   * `recorded`: a worker recorded the run's ending already; `reported`: this process's own
   * worker wrote its report (another worker may still be writing it).
   */
  async run(): Promise<{ result: RunResult; recorded: boolean; reported: boolean } | "detached"> {
    const store = this.#store;
    const { id, context } = this.#run;
    await store.fleet.clearHalt(id);
    const after = await store.fleet.lastEventId();
    await this.#takeOn();
    await store.fleet.queueRun(id);
    if (this.#options.detach) return "detached";
    let reported = false;
    const worker = new FleetWorker({
      store,
      name: `run-${id}`,
      concurrency: WORKER_CONCURRENCY,
      downloads: context.settings.limits.downloads,
      onlyRun: id,
      opened: [this.#run],
      // Only its own run, opened above.
      openRun: async () => undefined,
      settle: async (row) => {
        reported ||= await settleFleetRun(store, row);
      },
      clock: systemClock,
      log: this.#options.log,
    });
    await worker.start();
    try {
      await followRun(store, id, after, this.#options.emit, systemClock, this.#stop.signal);
    } finally {
      await worker.stop();
    }
    const row = await store.fleet.fleetRun(id);
    const halt = this.#stop.signal.aborted ? "interrupted" : (row?.halt ?? undefined);
    const unknown = await store.fleet.unknownSubmitsOf(id);
    const result = await runResult(store, id, halt as RunEnd | undefined, unknown);
    this.#options.emit({ type: "run:finished", ...result });
    return { result, recorded: row?.status !== "running", reported };
  }

  /** Every recorded task put where it belongs, counted for `run:started` as the engine does. */
  async #takeOn(): Promise<void> {
    const { context } = this.#run;
    const tasks = await this.#store.tasksOf(this.#run.id);
    const start = new RunStart(tasks);
    for (const task of tasks) {
      if (waitsForUpstream(task)) continue;
      const taken = await takeOnTask(task, context);
      start.placed(taken, task);
      if (taken.to === "done") await startDependants(this.#run, taken.task);
    }
    const { spent, paid } = await this.#store.summaryOf({ run: this.#run.id });
    this.#options.emit(start.started(context, { spent, paid }));
  }
}

export function isFleetStore(store: Store): store is PgStore {
  return "fleet" in store;
}

/** The run on a fleet: its engine parts opened as a worker's, task events read from the store. */
export async function fleetDriver(
  store: PgStore,
  work: RunWork,
  flags: RunFlags,
  reporter: { emit(event: EngineEvent): void; notice(message: string): void },
): Promise<FleetDriver> {
  if (flags.detach === true && work.baseUrl === "sim")
    throw new GwError(ErrorCode.Usage, "--detach needs a gateway every worker reaches", {
      hint: "the in-process simulator (base_url: sim) lives in this process only; start `gwrun sim --port N` and give its URL with --base-url",
    });
  // Task moves are told from the store's log (whichever worker made them), the rest as it
  // comes: what taking on the run's tasks here found (files missing, files delivered) too.
  const emit = work.emit;
  const fromLog = (type: string) =>
    (type.startsWith("task:") || type.startsWith("output:")) &&
    type !== "output:missing" &&
    type !== "output:delivered";
  const run = await openFleetRun(store, {
    ...work,
    emit: (event) => {
      if (!fromLog(event.type)) emit(event);
    },
  });
  return new FleetDriver(store, run, {
    detach: flags.detach === true,
    emit,
    log: (line) => reporter.notice(line),
  });
}
