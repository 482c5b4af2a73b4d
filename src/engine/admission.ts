import type { TaskRow } from "../store/index.js";

/**
 * Which pending task may be submitted next: per lane, within the lane's in-flight cap (tasks
 * being submitted plus tasks the gateway holds) and within the budget, which counts what was
 * spent plus the estimate of every task in flight. No IO: the engine tells it what happens.
 */

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
}

export class Admission {
  readonly #limits: AdmissionLimits;
  readonly #pending: Record<CapacityLane, TaskRow[]> = { image: [], video: [] };
  readonly #inFlight: Record<CapacityLane, number> = { image: 0, video: 0 };
  /** Estimated cost of each task in flight, by key. */
  readonly #reserved = new Map<string, number>();
  #reservedTotal = 0;
  #spent = 0;

  constructor(limits: AdmissionLimits) {
    this.#limits = limits;
  }

  /** What tasks done or completed have cost so far. */
  get spent(): number {
    return this.#spent;
  }

  get pendingCount(): number {
    return this.#pending.image.length + this.#pending.video.length;
  }

  /** Tasks in flight on a lane: being submitted or held by the gateway. */
  inFlight(lane: CapacityLane): number {
    return this.#inFlight[lane];
  }

  /** A pending task waits its turn. */
  enqueue(task: TaskRow): void {
    this.#pending[capacityLane(task)].push(task);
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
    if (!this.#withinBudget(task)) return "budget";
    queue.shift();
    this.started(task);
    return task;
  }

  /** A task is in flight (taken, or a task the gateway already held when the run began). */
  started(task: TaskRow): void {
    if (this.#reserved.has(task.key)) return;
    const estimate = task.estimated_cost ?? 0;
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

  /** What is spent plus what is in flight, at estimates. */
  get committed(): number {
    return this.#spent + this.#reservedTotal;
  }

  #withinBudget(task: TaskRow): boolean {
    const max = this.#limits.maxCost;
    if (max === undefined) return true;
    const committed = this.committed;
    return committed < max && committed + (task.estimated_cost ?? 0) <= max;
  }
}
