import type { Clock } from "../core/clock.js";
import type { TaskRow } from "../store/index.js";

/** What to do with work that threw (its task, what was being done): it must not throw itself. */
export type Failed = (task: TaskRow, error: unknown, what: string) => Promise<void>;

/**
 * A run's work outside its queues (checks, endings, dependants), kept in view so the run waits
 * for it, and the loop's sleep, which any settled work cuts short.
 */
export class Background {
  readonly #work = new Set<Promise<unknown>>();
  readonly #failed: Failed;
  #wake: (() => void) | undefined;

  constructor(failed: Failed) {
    this.#failed = failed;
  }

  get size(): number {
    return this.#work.size;
  }

  /** Keeps `work` in view until it settles. */
  spawn(work: Promise<unknown>, task: TaskRow, what: string): void {
    const tracked: Promise<unknown> = this.guard(work, task, what).finally(() => {
      this.#work.delete(tracked);
    });
    this.#work.add(tracked);
  }

  /**
   * Awaits `work`, handing a failure to `failed` (a queue's task settles with it, so a cleared
   * queue leaves nothing waiting on its promise).
   */
  async guard(work: Promise<unknown>, task: TaskRow, what: string): Promise<void> {
    try {
      await work;
    } catch (error) {
      await this.#failed(task, error, what);
    } finally {
      this.wake();
    }
  }

  /** Waits until every piece of work has settled, including work started meanwhile. */
  async drain(): Promise<void> {
    while (this.#work.size > 0) await Promise.all(this.#work);
  }

  /** Ends the loop's sleep now. */
  wake(): void {
    this.#wake?.();
  }

  /** Sleeps `ms` on `clock`, or until work settles, `wake()` or `signal`. */
  async sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
    await Promise.race([
      clock.sleep(ms, signal).catch(() => undefined),
      new Promise<void>((resolve) => {
        this.#wake = resolve;
      }),
    ]);
    this.#wake = undefined;
  }
}
