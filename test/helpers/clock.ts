import type { Clock } from "../../src/core/clock.js";

/** A clock that moves only when told to: tests pass time without sleeping. */
export class ManualClock implements Clock {
  #now: number;
  #sleepers: { until: number; resolve: () => void }[] = [];

  constructor(start = Date.UTC(2026, 10, 22, 6, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.#sleepers.push({ until: this.#now + ms, resolve });
    });
  }

  /** Moves time on by `ms`, waking every sleeper that is due. */
  advance(ms: number): void {
    this.#now += ms;
    const due = this.#sleepers.filter((sleeper) => sleeper.until <= this.#now);
    this.#sleepers = this.#sleepers.filter((sleeper) => sleeper.until > this.#now);
    for (const sleeper of due) sleeper.resolve();
  }
}
