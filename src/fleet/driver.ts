import { systemClock } from "../core/clock.js";
import { ErrorCode, GwError } from "../core/errors.js";
import {
  type EngineEvent,
  type RunResult,
  RunStart,
  runResult,
  startRun,
  takeOnTask,
} from "../engine/index.js";
import { isSimulator } from "../manifest/index.js";
import type { RunWork } from "../run/index.js";
import type { PgStore, Store } from "../store/index.js";
import { startDependants } from "./endings.js";
import { type FleetRun, haltOf } from "./fleet-run.js";
import { followRun } from "./follow.js";
import { openFleetRun } from "./open-run.js";
import { settleFleetRun } from "./settle.js";
import { FleetWorker } from "./worker.js";

/**
 * Runs on a PostgreSQL store are worked by a fleet: `gwrun run` records the run and its work
 * queue, works it as one of the workers, and follows it from the store until it settles;
 * `gwrun worker` works every run. Every worker opens a run from what the store recorded.
 */

/** Submit and download jobs a worker takes at once, unless told otherwise. */
export const WORKER_CONCURRENCY = 8;
export const WORKER_DOWNLOADS = 4;

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
        reported ||= await settleFleetRun(store, row, this.#options.log);
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
    const halt = this.#stop.signal.aborted
      ? "interrupted"
      : row === undefined
        ? undefined
        : haltOf(row);
    const unknown = await store.fleet.unknownSubmitsOf(id);
    const result = await runResult(store, id, halt, unknown);
    this.#options.emit({ type: "run:finished", ...result });
    return { result, recorded: row?.status !== "running", reported };
  }

  /** Every recorded task put where it belongs, counted for `run:started` as the engine does. */
  async #takeOn(): Promise<void> {
    const { context } = this.#run;
    // Pending tasks are left to the submit jobs `queueRun` queues from the store.
    const start = new RunStart(context.templates);
    const started = await startRun(context, start, async (task) => {
      const taken = await takeOnTask(task, context);
      start.placed(taken, task);
      // What else a task's placement moved, the store queues for the fleet's workers.
      if (taken.to === "done") await startDependants(this.#run, taken.task);
    });
    this.#options.emit(started);
  }
}

export function isFleetStore(store: Store): store is PgStore {
  return "fleet" in store;
}

/**
 * The store, when a fleet works a run against `baseUrl` on it: a PostgreSQL store, and a
 * gateway every worker reaches. The built-in simulator lives in the process that started the
 * run, whose engine works it alone (`workAlone`: no jobs are queued for it), so it cannot be
 * left to the workers (`detach`); nor can a run on a SQLite store.
 */
export function fleetFor(store: Store, baseUrl: string, detach: boolean): PgStore | undefined {
  if (!isFleetStore(store)) {
    if (detach)
      throw new GwError(ErrorCode.Usage, "--detach needs a PostgreSQL store for workers to share", {
        hint: "give --store postgres://… (or GWRUN_STORE); on a SQLite store the run is worked by this process, so leave out --detach",
      });
    return undefined;
  }
  if (!isSimulator(baseUrl)) return store;
  if (detach)
    throw new GwError(ErrorCode.Usage, "--detach needs a gateway every worker reaches", {
      hint: "the in-process simulator (base_url: sim) lives in this process only; start `gwrun sim --port N` and give its URL with --base-url",
    });
  return undefined;
}

/** The run on a fleet: its engine parts opened as a worker's, task events read from the store. */
export async function fleetDriver(
  store: PgStore,
  work: RunWork,
  options: { detach: boolean },
  reporter: { emit(event: EngineEvent): void; notice(message: string): void },
): Promise<FleetDriver> {
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
    detach: options.detach,
    emit,
    log: (line) => reporter.notice(line),
  });
}
