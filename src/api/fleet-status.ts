import { fleetTiming, isFleetStore } from "../fleet/index.js";
import type { RunRow, Store, WorkerRow } from "../store/index.js";

/**
 * The fleet part of `gwrun status` on a PostgreSQL store: the workers and their heartbeats,
 * who submitted the run's tasks, the poll leader, the pace, the work queue, the orphaned task
 * ids. Ages and pauses are by the database's clock, since the hosts' clocks may disagree.
 */

/** Links expiring sooner than this are counted. */
const EXPIRING_WITHIN_MS = 3_600_000;

export interface FleetWorkerStatus {
  id: string;
  name: string;
  host: string;
  pid: number;
  /**
   * "live"; "silent": no heartbeat for long enough that it submits nothing more, found dead
   * once its lease runs out; or "stopped" (left cleanly) or "dead" within the last hour.
   */
  state: "live" | "silent" | "stopped" | "dead";
  /** Its lease in seconds: silent this long, it is found dead (null if not recorded). */
  lease_s: number | null;
  /** Seconds since its last heartbeat, to a tenth. */
  heartbeat_age_s: number;
  /** The run's tasks it submitted. */
  submits: number;
  poll_leader: boolean;
}

export interface FleetStatus {
  workers: FleetWorkerStatus[];
  /** The run's submits by worker id, those of workers gone for longer included. */
  submits: Record<string, number>;
  /** The worker ids leading polls. */
  poll_leaders: string[];
  /** The run's gateway account's pace. */
  pace: {
    account: string;
    /** Submits per second now. */
    rate: number;
    ceiling: number;
    announced: number | null;
    /** Seconds left of a pause (Retry-After), to a tenth; 0 when not paused. */
    paused_s: number;
  }[];
  queue: { submits: number; downloads: number; running: number };
  /** Completed tasks whose links expire within the hour, not downloaded yet. */
  expiring_links: number;
  /** Task ids that came back after their claim was taken over (may be paid tasks). */
  orphan_task_ids: number;
}

/** The fleet as it stands, on a PostgreSQL store; undefined on SQLite. */
export async function fleetStatus(store: Store, run: RunRow): Promise<FleetStatus | undefined> {
  if (!isFleetStore(store)) return undefined;
  const { fleet } = store;
  const [workers, submits, leaders, paceRows, depth, orphans] = await Promise.all([
    fleet.workersOf(),
    fleet.submitsByWorker(run.id),
    fleet.pollLeaders(),
    fleet.paceRows(),
    fleet.queueDepth(EXPIRING_WITHIN_MS),
    fleet.orphanCount(),
  ]);
  // The live first; each group newest first, as the store lists them.
  const listed = [...workers].sort((x, y) => gone(x) - gone(y));
  return {
    workers: listed.map((worker) => ({
      id: worker.id,
      name: worker.name,
      host: worker.host,
      pid: worker.pid,
      state: stateOf(worker),
      lease_s: worker.lease_ms === null ? null : worker.lease_ms / 1000,
      heartbeat_age_s: tenths(worker.heartbeat_age_ms / 1000),
      submits: submits[worker.id] ?? 0,
      poll_leader: leaders.some((leader) => leads(leader, worker.id)),
    })),
    submits,
    poll_leaders: leaders,
    pace: paceRows
      .filter((pace) => pace.account === run.base_url)
      .map((pace) => ({
        account: pace.account,
        rate: pace.rate,
        ceiling: pace.ceiling,
        announced: pace.announced,
        paused_s: tenths(pace.paused_ms / 1000),
      })),
    queue: { submits: depth.submits, downloads: depth.downloads, running: depth.running },
    expiring_links: depth.expiringLinks,
    orphan_task_ids: orphans,
  };
}

function stateOf(worker: WorkerRow): FleetWorkerStatus["state"] {
  if (worker.dead_at !== null) return "dead";
  if (worker.stopped_at !== null) return "stopped";
  // Silent past its fence, a worker claims nothing more: it is alive only in name.
  const silent =
    worker.lease_ms !== null && worker.heartbeat_age_ms > fleetTiming(worker.lease_ms).fenceMs;
  return silent ? "silent" : "live";
}

/** Live workers first, then the silent, then those gone. */
function gone(worker: WorkerRow): number {
  return { live: 0, silent: 1, stopped: 2, dead: 2 }[stateOf(worker)];
}

/** A leader's connection names its worker in 50 characters at most (the rest is cut). */
const LEADER_ID_CHARS = 50;

export function leads(leader: string, workerId: string): boolean {
  return leader === workerId || (leader.length === LEADER_ID_CHARS && workerId.startsWith(leader));
}

function tenths(value: number): number {
  return Math.round(value * 10) / 10;
}
