import { capacityLane, type RunContext, type RunEnd, STATUS_BY_END } from "../engine/index.js";
import type { Releasers } from "../run/index.js";
import type {
  BudgetRow,
  ClaimLimits,
  FleetClaim,
  FleetRunRow,
  PgStore,
  ProjectPaths,
  TaskRow,
} from "../store/index.js";

/**
 * One run as a worker holds it: the run context its tasks are worked in (built from the
 * manifest the run recorded), the gateway account whose pace and poll leader it shares,
 * and whether its submits were halted (by any worker).
 */
export interface FleetRun {
  readonly id: number;
  readonly context: RunContext;
  /** The gateway account: runs against one gateway share one pace and one poll leader. */
  readonly account: string;
  /** Why its submits stopped, as last read or set; undefined while they go on. */
  halt: RunEnd | undefined;
  /**
   * Tasks a submit job claimed together before sending the first, by key: each is handed to
   * one send (taken out as it is), and a job that ends before sending one gives it back.
   */
  readonly claimedAhead: Map<string, TaskRow>;
  /** The worker its claims name. */
  readonly owner: string;
  /**
   * The project paths of the run, when the worker's own store keeps paths as recorded (a
   * `gwrun worker` works runs of any project); undefined when they are the worker's store's.
   */
  readonly paths?: ProjectPaths;
  /** What the run opened for this worker (its pace, gateway, storage), released with it. */
  readonly releasers: Releasers;
  /** Budgets across runs that hold for its gateway, as they were when it opened. */
  readonly budgets: readonly BudgetRow[];
}

/** Opens a recorded run for this worker; undefined when this process cannot work it. */
export type OpenRun = (run: FleetRunRow) => Promise<FleetRun | undefined>;

/** What a claim of this task must keep within: its lane's cap and the run's budget. */
export function claimLimits(
  context: Pick<RunContext, "settings">,
  task: TaskRow,
  budgets: readonly BudgetRow[],
): ClaimLimits {
  const { limits } = context.settings;
  const lane = capacityLane(task);
  return {
    cap: lane === "video" ? limits.maxInFlightVideo : limits.maxInFlight,
    maxCost: limits.maxCost,
    unknownCost: limits.unknownCost,
    ...(budgets.length === 0 ? {} : { periods: budgets }),
  };
}

/** Claims `tasks` within `limits`: under the budgets across runs when there are some. */
export function claimTasks(
  store: PgStore,
  tasks: readonly TaskRow[],
  owner: string,
  limits: ClaimLimits,
  now: number,
): Promise<FleetClaim[]> {
  return limits.periods === undefined
    ? store.fleet.claimTasksWithin(tasks, owner, limits, now)
    : store.fleet.claimTasksUnderBudgets(tasks, owner, limits, now);
}

/** A run's recorded halt as the engine names its ending; undefined while submits go on. */
export function haltOf(row: Pick<FleetRunRow, "halt">): RunEnd | undefined {
  const { halt } = row;
  return halt !== null && Object.hasOwn(STATUS_BY_END, halt) ? (halt as RunEnd) : undefined;
}

/** Stops the run's submits for every worker; the first reason stays. */
export async function haltRun(
  store: PgStore,
  run: FleetRun,
  halt: RunEnd,
  message: string,
): Promise<void> {
  run.halt ??= halt;
  if (await store.fleet.haltRun(run.id, halt, message))
    run.context.emit({ type: "run:stopping", reason: halt, message });
}
