import type { BudgetRow } from "./budget-port.js";
import type { PaceRow } from "./pace-port.js";
import type { OutputRow, RunRow, TaskRow } from "./rows.js";
import type { TaskEvent } from "./task-events.js";
import type { Receipt } from "./transition-inputs.js";

/**
 * The fleet's part of a PostgreSQL store (`FleetStore`) and the rows it reads and writes;
 * `./postgres/fleet-*.ts` implement it.
 */

/** A task with its outputs as a download job reads it. */
export interface TaskWithOutputs {
  task: TaskRow;
  outputs: OutputRow[];
  /** Whether another task goes by its label. */
  labelShared: boolean;
}

/** What a fleet-wide claim may take of its run: the lane's cap and the budget. */
export interface ClaimLimits {
  /** Tasks in flight at once on the task's capacity lane (text shares the image lane). */
  cap: number;
  /** The run's budget, or undefined for none. */
  maxCost: number | undefined;
  /** Reserved for a task without an estimate. */
  unknownCost: number | undefined;
  /** Budgets across runs that hold for the run's gateway (`claimTasksUnderBudgets`). */
  periods?: readonly BudgetRow[];
}

/** A task claimed, with the events of its move; or why it was not. */
export type FleetClaim =
  | { claimed: TaskRow; events: TaskEvent[] }
  | { refused: "full" | "budget" | "period" | "gone" };

/** A receipt recorded, kept as an orphan (its claim was taken over), or refused: its task id is another task's. */
export type FleetReceipt = "recorded" | "orphan" | { duplicateOf: string };

/** A worker of the fleet, as it registers itself. */
export interface WorkerIdentity {
  /** pid@host: the owner its claims name. */
  id: string;
  name: string;
  host: string;
  pid: number;
  /** Silent this long, it is found dead. */
  leaseMs: number;
}

/** A worker as the store keeps it, alive or not. */
export interface WorkerRow extends Omit<WorkerIdentity, "leaseMs"> {
  /** Null for a worker registered before leases were recorded. */
  lease_ms: number | null;
  pool_ids: string[];
  /** Milliseconds since its last heartbeat, by the database's clock. */
  heartbeat_age_ms: number;
  started_at: number;
  stopped_at: number | null;
  dead_at: number | null;
}

/** A run as the fleet works it. */
export interface FleetRunRow extends RunRow {
  resolved_manifest: string | null;
  /** Why its submits stopped (budget, balance, interrupted); null while they go on. */
  halt: string | null;
  /** Its tasks are placed and their jobs queued: from then on it may settle. */
  queued: boolean;
}

/** One logged move of a task of the run, for a process following it. */
export interface LoggedMove {
  id: number;
  type: string;
  key: string;
  reason: string | null;
  job_id: string;
  label: string;
  task_id: string | null;
  cost: number | null;
  progress: number | null;
  outputs: number;
}

/** One gateway account's pace row as it stands. */
export interface PaceRowStatus {
  account: string;
  /** Submits per second now. */
  rate: number;
  /** The manifest's submit rate per second. */
  ceiling: number;
  /** The limit per second the gateway last announced, if it did. */
  announced: number | null;
  /** How long no turn is given yet (Retry-After), from the database's now, ms; 0 when not. */
  paused_ms: number;
}

/**
 * The poll leader's lock for one gateway account: held by one process of the fleet at a time,
 * and freed when that process's connection goes.
 */
export interface LeaderLock {
  /** Whether this process leads now. */
  readonly leading: boolean;
  /** Leads if no other process does; true while this process leads. */
  tryLead(): Promise<boolean>;
  /** Gives the lead up (its connection closes, so the lock goes with it). */
  release(): Promise<void>;
}

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
  /**
   * `claimTasksWithin` under budgets across runs (`limits.periods`): one claim at a time per
   * budget, fleet-wide, each task claimed only while what every run sent this period (by the
   * database's clock) plus what it reserves stays within each; the rest are refused "period".
   */
  claimTasksUnderBudgets(
    tasks: readonly TaskRow[],
    owner: string,
    limits: ClaimLimits,
    now: number,
  ): Promise<FleetClaim[]>;
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
    end: {
      status: string;
      exitCode: number;
      now: number;
      states?: Readonly<Record<string, number>>;
    },
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
