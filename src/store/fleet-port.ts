import type { ClaimLimits, FleetClaim, FleetReceipt } from "./postgres/fleet-claims.js";
import type { LeaderLock } from "./postgres/fleet-leader.js";
import type { FleetRunRow, LoggedMove } from "./postgres/fleet-runs.js";
import type { PaceRowStatus } from "./postgres/fleet-status.js";
import type { WorkerIdentity, WorkerRow } from "./postgres/fleet-workers.js";
import type { PaceRow, PaceState, PaceTurn, Successes } from "./postgres/pace.js";
import type { OutputRow, TaskRow } from "./rows.js";
import type { TaskEvent } from "./task-events.js";
import type { Receipt } from "./transition-inputs.js";

export type { ClaimLimits, FleetClaim, FleetReceipt, FleetRunRow, LoggedMove, WorkerRow };
export type { LeaderLock, PaceRowStatus, WorkerIdentity };

/** A task with its outputs as a download job reads it. */
export interface TaskWithOutputs {
  task: TaskRow;
  outputs: OutputRow[];
  /** Whether another task goes by its label. */
  labelShared: boolean;
}
export type { PaceRow, PaceState, PaceTurn, Successes };

/**
 * What a fleet of workers sharing one PostgreSQL store asks of it beyond the store port:
 * workers and their heartbeats, claims that hold caps fleet-wide, the poll leader's lock,
 * runs every worker can pick up, and the graphile-worker queue (its jobs are added by the
 * store itself, in the transaction of the task move that causes them).
 */
export interface FleetStore {
  /** The connection string. */
  readonly url: string;
  /**
   * A pool of `max` connections for a graphile-worker runner (its `pgPool`), set up as the
   * store's own. Its owner ends it (`end()`) once the runner has stopped: a pool left to close
   * by itself keeps a stopping worker's process alive until its idle connections time out.
   */
  queuePool(max: number): { readonly pool: unknown; end(): Promise<void> };
  /** The gateway pace rows every worker takes its turns from. */
  readonly pace: PaceRow;
  registerWorker(worker: WorkerIdentity): Promise<void>;
  addWorkerPool(workerId: string, poolId: string): Promise<void>;
  /** False when a reaper found this worker dead already. */
  heartbeat(workerId: string): Promise<boolean>;
  workerStopped(workerId: string): Promise<void>;
  /** Marks silent workers dead, frees their jobs, and returns their claims to resolve. */
  reapWorkers(
    leaseMs: number,
    gone?: readonly string[],
  ): Promise<{ dead: string[]; claims: TaskRow[] }>;
  workersOf(): Promise<WorkerRow[]>;
  /** Tasks and their outputs in one read, by key, and whether another task goes by each label. */
  tasksWithOutputs(keys: readonly string[]): Promise<Map<string, TaskWithOutputs>>;
  /**
   * Claims `tasks` (one run, one capacity lane) in order, in one call: each moves from pending
   * only, while the lane has room and the budget allows; each gets its claim or its refusal.
   */
  claimTasksWithin(
    tasks: readonly TaskRow[],
    owner: string,
    limits: ClaimLimits,
    now: number,
  ): Promise<FleetClaim[]>;
  /** Claims `owner` made and never sent, back to pending while still its own: how many. */
  releaseUnsentClaims(keys: readonly string[], owner: string, now: number): Promise<number>;
  claimWithin(task: TaskRow, owner: string, limits: ClaimLimits, now: number): Promise<FleetClaim>;
  /** Receipts recorded in one statement, each only while `owner` still holds its claim. */
  recordClaimedReceipts(
    receipts: readonly Receipt[],
    owner: string,
    now: number,
  ): Promise<{ recorded: FleetReceipt[]; events: TaskEvent[] }>;
  recordClaimedReceipt(
    receipt: Receipt,
    owner: string,
    now: number,
  ): Promise<{ recorded: FleetReceipt; events: TaskEvent[] }>;
  resolveDeadClaim(
    task: TaskRow,
    policy: "resubmit" | "hold",
    reason: string,
    now: number,
  ): Promise<boolean>;
  /** The keys of the tasks the gateway holds for these runs (submitted or processing). */
  heldByGateway(runIds: readonly number[]): Promise<{ key: string; run_id: number }[]>;
  orphansOf(
    limit: number,
  ): Promise<{ task_id: string; job_key: string; worker_id: string; received_at: number }[]>;
  setResolvedManifest(runId: number, text: string): Promise<void>;
  /** Marks a run only its own process works (before its tasks are recorded): no jobs queue. */
  workAlone(runId: number): Promise<void>;
  fleetRun(runId: number): Promise<FleetRunRow | undefined>;
  /** Runs the fleet works (not those worked alone) that are still going, oldest first. */
  activeRuns(): Promise<FleetRunRow[]>;
  haltRun(runId: number, halt: string, message: string): Promise<boolean>;
  clearHalt(runId: number): Promise<void>;
  hasWorkLeft(runId: number, halted: boolean): Promise<boolean>;
  settleRun(
    runId: number,
    end: { status: string; exitCode: number; now: number },
  ): Promise<boolean>;
  queueRun(runId: number): Promise<void>;
  movesSince(runId: number, afterId: number, limit?: number): Promise<LoggedMove[]>;
  unknownSubmitsOf(runId: number): Promise<number>;
  /** This store's identity, written into the output folders its runs share. */
  storeId(): Promise<string>;
  lastEventId(): Promise<number>;
  leaderLock(account: string, workerId: string): LeaderLock;
  pollLeaders(): Promise<string[]>;
  queueDepth(
    expiringWithinMs: number,
  ): Promise<{ submits: number; downloads: number; running: number; expiringLinks: number }>;
  /** Every gateway account's pace row: rate, ceiling, announced limit, pause left. */
  paceRows(): Promise<PaceRowStatus[]>;
  /** Submits made for a run (a task kept from an earlier run is not one), per worker id. */
  submitsByWorker(runId: number): Promise<Record<string, number>>;
  orphanCount(): Promise<number>;
}
