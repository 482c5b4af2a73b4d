/** Scheduled manifests: the daemon's loop, leases against overlap, tick runs and pruning. */

export { type DueTick, decideDueTicks, LATE_MS } from "./due-ticks.js";
export { idleTickReason, tickWhen } from "./idle-tick.js";
export {
  describeHolder,
  holderIsGone,
  LEASE_TTL_MS,
  type Lease,
  thisProcess,
  tryLease,
} from "./lease.js";
export { pruneRuns } from "./prune.js";
export {
  LEASE_POLL_MS,
  type ScheduledManifest,
  Scheduler,
  type SchedulerOptions,
} from "./scheduler.js";
export { runTickUnderLease, type TickRunner } from "./tick-run.js";
