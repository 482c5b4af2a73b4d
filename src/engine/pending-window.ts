import type { Store, TaskPageOf } from "../store/index.js";
import type { Admission, CapacityLane } from "./admission.js";

/** Pending tasks a lane's queue holds at most; the store is read again once half are gone. */
export const QUEUE_WINDOW = 1000;

const PAGE_OF: Record<CapacityLane, TaskPageOf> = {
  image: "image-queue",
  video: "video-queue",
};

/**
 * The run's pending tasks, read from the store a page at a time in the order they were
 * recorded, as each lane's queue drains: a run holds a window of them, not all of them. A task
 * already queued or in flight (taken on at the start, requeued) is not queued twice.
 */
export class PendingWindow {
  readonly #store: Pick<Store, "taskPage">;
  readonly #runId: number;
  readonly #size: number;
  /** Per lane, the place of the last task read. */
  readonly #after: Record<CapacityLane, number> = { image: 0, video: 0 };
  readonly #read: Record<CapacityLane, boolean> = { image: false, video: false };

  constructor(store: Pick<Store, "taskPage">, runId: number, size = QUEUE_WINDOW) {
    this.#store = store;
    this.#runId = runId;
    this.#size = size;
  }

  /** Every pending task recorded has been read. */
  get exhausted(): boolean {
    return this.#read.image && this.#read.video;
  }

  /**
   * Tops up each lane's queue in `admission` whose window is half empty. A store that cannot
   * be read is `unreadable`'s to handle; an error it does not take is thrown.
   */
  async refill(admission: Admission, unreadable: (error: unknown) => boolean): Promise<void> {
    try {
      for (const lane of ["image", "video"] as const) {
        const room = this.#size - admission.waiting(lane);
        if (this.#read[lane] || room < this.#size / 2) continue;
        const page = await this.#store.taskPage(
          this.#runId,
          PAGE_OF[lane],
          this.#after[lane],
          room,
        );
        for (const { place, task } of page) {
          this.#after[lane] = place;
          if (!admission.holds(task.key)) admission.enqueue(task);
        }
        if (page.length < room) this.#read[lane] = true;
      }
    } catch (error) {
      if (!unreadable(error)) throw error;
    }
  }
}
