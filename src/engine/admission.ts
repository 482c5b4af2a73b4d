import { roundMoney } from "../core/money.js";
import type { TaskRow } from "../store/index.js";
import type { PeriodBudgets } from "./period-budgets.js";

/** Submit requests in flight at once (the pace decides how fast they start). */
export const SUBMIT_CONCURRENCY = 16;

/** Completed tasks allowed to wait for a download slot (or checks) before submits pause. */
export const DOWNLOAD_BACKLOG = 256;

/**
 * Which pending task may be submitted next: per lane, within the lane's in-flight cap (tasks
 * being submitted plus tasks the gateway holds) and within the budget: a task goes only if
 * what was spent, plus the reservation of every task in flight, plus its own stays within
 * `max_cost`. A task reserves its estimate, else `unknown_cost`, else nothing (the manifest
 * check warns that the cap cannot protect it). No IO: the engine tells it what happens.
 */

/** How a budget stop ends, in its message and in the run's summary. */
export const BUDGET_ADVICE = "raise max_cost and run again; done work is not paid twice";

/**
 * The message of a budget stop; amounts in the gateway's currency units. `unknown`: what the
 * submits of unknown outcome count (each may have been billed).
 */
export function budgetStopMessage(maxCost: number | undefined, spent: number, unknown = 0): string {
  const maybe = unknown > 0 ? `, and ${unknown} for submits of unknown outcome` : "";
  return `budget reached: max_cost ${maxCost} (spent ${spent} plus tasks running${maybe}); ${BUDGET_ADVICE}`;
}

/** Capacity lanes: text calls share the image lane's cap, both light next to video. */
export type CapacityLane = "image" | "video";

export function capacityLane(task: Pick<TaskRow, "lane">): CapacityLane {
  return task.lane === "video" ? "video" : "image";
}

export interface AdmissionLimits {
  maxInFlight: number;
  maxInFlightVideo: number;
  /** The budget; undefined for none. */
  maxCost: number | undefined;
  /** Reserved for a task without an estimate; undefined reserves nothing. */
  unknownCost: number | undefined;
}

export class Admission {
  readonly #limits: AdmissionLimits;
  readonly #pending: Record<CapacityLane, TaskRow[]> = { image: [], video: [] };
  /** The keys in `#pending`. */
  readonly #queued = new Set<string>();
  readonly #inFlight: Record<CapacityLane, number> = { image: 0, video: 0 };
  /** Estimated cost of each task in flight, by key. */
  readonly #reserved = new Map<string, number>();
  #reservedTotal = 0;
  #spent = 0;
  /** Reservations kept for tasks that finished without a reported cost. */
  #assumed = 0;
  /** Submits of unknown outcome counted so far, by task key (few: only tasks that had one). */
  readonly #unknownCounted = new Map<string, number>();
  /** What those submits count: their tasks' reservations (part of `#assumed`). */
  #unknownReserved = 0;

  readonly #period: PeriodBudgets | undefined;
  /** Which budget the last refusal met: the run's `max_cost`, or one across runs. */
  #refusedBy: "run" | "period" = "run";

  constructor(limits: AdmissionLimits, period?: PeriodBudgets) {
    this.#limits = limits;
    this.#period = period;
  }

  /** What tasks done or completed have cost so far. */
  get spent(): number {
    return this.#spent;
  }

  get pendingCount(): number {
    return this.#pending.image.length + this.#pending.video.length;
  }

  /** Pending tasks of a lane waiting their turn. */
  waiting(lane: CapacityLane): number {
    return this.#pending[lane].length;
  }

  /** The task waits its turn or is in flight. */
  holds(key: string): boolean {
    return this.#queued.has(key) || this.#reserved.has(key);
  }

  /** Tasks in flight on a lane (or on both): being submitted or held by the gateway. */
  inFlight(lane?: CapacityLane): number {
    return lane === undefined ? this.#inFlight.image + this.#inFlight.video : this.#inFlight[lane];
  }

  /** A pending task waits its turn. */
  enqueue(task: TaskRow): void {
    this.#pending[capacityLane(task)].push(task);
    this.#queued.add(task.key);
  }

  /**
   * The next task of `lane` to submit, now counted in flight; "budget" when the next would
   * cross the budget; undefined when the lane is full or has nothing waiting.
   */
  take(lane: CapacityLane): TaskRow | "budget" | undefined {
    const queue = this.#pending[lane];
    const cap = lane === "video" ? this.#limits.maxInFlightVideo : this.#limits.maxInFlight;
    const task = queue[0];
    if (task === undefined || this.#inFlight[lane] >= cap) return undefined;
    if (!this.#withinBudget(task)) {
      this.#refusedBy = "run";
      return "budget";
    }
    const reservation = this.#reservationOf(task);
    const allowed = this.#period === undefined ? true : this.#period.allows(reservation);
    // The budgets across runs are still being read: ask again soon.
    if (allowed === undefined) return undefined;
    if (!allowed) {
      this.#refusedBy = "period";
      return "budget";
    }
    this.#period?.took(reservation);
    queue.shift();
    this.#queued.delete(task.key);
    this.started(task);
    return task;
  }

  /** A task is in flight (taken, or a task the gateway already held when the run began). */
  started(task: TaskRow): void {
    if (this.#reserved.has(task.key)) return;
    const estimate = this.#reservationOf(task);
    this.#reserved.set(task.key, estimate);
    this.#reservedTotal += estimate;
    this.#inFlight[capacityLane(task)] += 1;
  }

  /** A task left flight (completed, failed, or put back); its reservation is released. */
  ended(task: Pick<TaskRow, "key" | "lane">): void {
    const estimate = this.#reserved.get(task.key);
    if (estimate === undefined) return;
    this.#reserved.delete(task.key);
    this.#reservedTotal -= estimate;
    this.#inFlight[capacityLane(task)] -= 1;
  }

  /** Money spent (a completed task's cost, or a done task's from an earlier run). */
  commit(cost: number | null): void {
    this.#spent += cost ?? 0;
  }

  /**
   * A task was paid for (completed now or in an earlier process): its reservation, if any, is
   * released and its cost spent; without a reported cost (text answers) it counts at its
   * reservation, since nothing says it was cheaper.
   */
  finished(task: TaskRow, cost: number | null): void {
    this.ended(task);
    if (cost !== null) this.commit(cost);
    else this.#assumed += this.#reservationOf(task);
  }

  /**
   * `total` submits of the task so far had an unknown outcome (a reset after sending, a 5xx):
   * each may have made and billed a task the gateway never named, so each counts the task's
   * reservation (as `gwrun_spend_of` counts them for a fleet). Given as a total, so a task
   * told of twice counts once.
   */
  unknownSubmits(task: TaskRow, total: number): void {
    const counted = this.#unknownCounted.get(task.key) ?? 0;
    if (total <= counted) return;
    this.#unknownCounted.set(task.key, total);
    const reserved = this.#reservationOf(task) * (total - counted);
    this.#assumed += reserved;
    this.#unknownReserved += reserved;
  }

  /** What submits of unknown outcome count against the budget. */
  get unknownReserved(): number {
    return this.#unknownReserved;
  }

  /** The message of the budget stop a `take` answered. */
  budgetStop(): string {
    if (this.#refusedBy === "period" && this.#period !== undefined) return this.#period.stopMessage;
    const { maxCost } = this.#limits;
    return budgetStopMessage(maxCost, roundMoney(this.#spent), roundMoney(this.#unknownReserved));
  }

  /** What is spent (or assumed spent) plus what is in flight, at reservations. */
  get committed(): number {
    return this.#spent + this.#assumed + this.#reservedTotal;
  }

  #reservationOf(task: TaskRow): number {
    return task.estimated_cost ?? this.#limits.unknownCost ?? 0;
  }

  #withinBudget(task: TaskRow): boolean {
    const max = this.#limits.maxCost;
    if (max === undefined) return true;
    // Rounded: sums of prices such as 0.2 drift by a hair past an exact cap.
    const committed = roundMoney(this.committed);
    return committed < max && roundMoney(committed + this.#reservationOf(task)) <= max;
  }
}
