/**
 * A fleet: several worker processes, on several hosts, working the runs of one PostgreSQL
 * store against one gateway account. graphile-worker dispatches submit and download jobs
 * (the store adds them in the transaction of the task move that causes them); claims hold
 * each lane's cap and the budget fleet-wide; one poll leader per account keeps batch calls
 * full; workers heartbeat, and every worker reaps the dead.
 */
export {
  FleetDriver,
  fleetDriver,
  fleetFor,
  isFleetStore,
  WORKER_CONCURRENCY,
  WORKER_DOWNLOADS,
} from "./driver.js";
export { startDependants } from "./endings.js";
export { type FleetRun, haltRun, type OpenRun } from "./fleet-run.js";
export { followRun } from "./follow.js";
export { openFleetRun, readyForWorkers, storedRunOpener } from "./open-run.js";
export { checkMarker, MARKER_FILE, writeMarker } from "./output-marker.js";
export { FleetPace, openFleetPace } from "./pace.js";
export { runProject } from "./run-project.js";
export { settleFleetRun } from "./settle.js";
export { DEFAULT_LEASE_MS, fleetTiming } from "./timing.js";
export { FleetWorker, type WorkerOptions } from "./worker.js";
export { startWorkerProcess, type WorkerProcess } from "./worker-process.js";
export { fleetWrites } from "./writes.js";
