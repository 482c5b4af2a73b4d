import { systemClock } from "../core/clock.js";
import { commandIo } from "../core/io.js";
import { publishTargetsOfRun } from "../manifest/index.js";
import { inProject, locatedRun, type PgStore, projectPaths } from "../store/index.js";
import { storedRunOpener } from "./open-run.js";
import { checkMarker } from "./output-marker.js";
import { runProject } from "./run-project.js";
import { settleFleetRun } from "./settle.js";
import { DEFAULT_LEASE_MS } from "./timing.js";
import { FleetWorker } from "./worker.js";

/**
 * `gwrun worker` put together: a worker of every run of a PostgreSQL store (or one), each run
 * opened in its own project from what the store recorded and settled there. `project` is the
 * folder the worker was started in.
 */
export interface WorkerProcess {
  /** The store, its paths as recorded (each run is worked in its own project). */
  store: PgStore;
  project: string;
  name: string;
  /** The worker's id in claims and heartbeats (default: this process's). */
  id?: string;
  concurrency: number;
  downloads: number;
  /** Works only this run. */
  onlyRun?: number;
  /** How long a silent worker counts as alive. */
  leaseMs?: number;
  log(line: string): void;
  /** Log each run taken up and settled (the command does; tests keep quiet). */
  logRuns?: boolean;
}

/** A fleet's worker for this process, started; throws before starting when it cannot see a run's folder. */
export async function startWorkerProcess(options: WorkerProcess): Promise<FleetWorker> {
  const { store, project, log } = options;
  await refuseUnseenFolders(store, project);
  const worker = new FleetWorker({
    store,
    name: options.name,
    id: options.id,
    concurrency: options.concurrency,
    downloads: options.downloads,
    onlyRun: options.onlyRun,
    openRun: storedRunOpener(store, project, () => {}, options.id),
    settle: async (row) => {
      const paths = projectPaths(runProject(row, project));
      await settleFleetRun(inProject(store, paths.root), locatedRun(paths, row), log);
    },
    clock: systemClock,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    log,
    logRuns: options.logRuns ?? true,
  });
  await worker.start();
  return worker;
}

/**
 * A worker that cannot see a running run's shared output folder must not start: it would redo.
 * A run that publishes its outputs to object storage has no shared folder.
 */
async function refuseUnseenFolders(store: PgStore, project: string): Promise<void> {
  const id = await store.fleet.storeId();
  for (const run of await store.fleet.activeRuns()) {
    if (publishTargetsOfRun(run, commandIo().env).length > 0) continue;
    const paths = projectPaths(runProject(run, project));
    checkMarker(paths.absolute(run.output_dir), id);
  }
}
