import type { Clock } from "../core/clock.js";
import { coerceError } from "../core/errors.js";
import { type TaskRow, TaskState, TRANSITIONS } from "../store/index.js";

/**
 * A run's work outside its queues (checks, endings, dependants), kept in view so the run waits
 * for it, and the loop's sleep, which any settled work cuts short. Work must not throw: a
 * failure fails its task, with what was being done.
 */
export class Background {
  readonly #work = new Set<Promise<unknown>>();
  readonly #failTask: (task: TaskRow, reason: string) => Promise<void>;
  #wake: (() => void) | undefined;

  constructor(failTask: (task: TaskRow, reason: string) => Promise<void>) {
    this.#failTask = failTask;
  }

  get size(): number {
    return this.#work.size;
  }

  /** Keeps `work` in view until it settles; a failure fails its task with `what`. */
  spawn(work: Promise<unknown>, task: TaskRow, what: string): void {
    const tracked: Promise<unknown> = this.guard(work, task, what).finally(() => {
      this.#work.delete(tracked);
    });
    this.#work.add(tracked);
  }

  /**
   * Awaits `work`; a failure fails its task with `what` (a queue's task settles with it, so a
   * cleared queue leaves nothing waiting on its promise).
   */
  async guard(work: Promise<unknown>, task: TaskRow, what: string): Promise<void> {
    try {
      await work;
    } catch (error) {
      // A task that has ended (done, failed) keeps its state; the next run takes it on again.
      if (TRANSITIONS[task.state].includes(TaskState.Failed))
        await this.#failTask(task, `${what}: ${coerceError(error).message}`).catch(() => undefined);
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
