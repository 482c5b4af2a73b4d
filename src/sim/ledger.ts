interface RunningTask {
  price: number;
  endsAt: number;
  fails: boolean;
}

/**
 * The balance, when one is configured. A task's price is held while it runs and charged when
 * it completes; a failed task releases its hold (failures are not billed). A submit is refused
 * (402) when the balance left after charges and holds cannot cover its price.
 */
export class Ledger {
  #charged = 0;
  #held = 0;
  #running: RunningTask[] = [];

  constructor(private readonly balance: number | undefined) {}

  /** Whether a task of this price may start at `now`. */
  canAfford(price: number, now: number): boolean {
    if (this.balance === undefined) return true;
    this.#settle(now);
    return this.balance - this.#charged - this.#held >= price - 1e-9;
  }

  /** Holds the price of a task that runs until `endsAt`. */
  hold(price: number, endsAt: number, fails: boolean): void {
    if (this.balance === undefined) return;
    this.#held += price;
    this.#running.push({ price, endsAt, fails });
  }

  /** Currency units charged for tasks completed by `now`. */
  charged(now: number): number {
    this.#settle(now);
    return Math.round(this.#charged * 100) / 100;
  }

  #settle(now: number): void {
    const still: RunningTask[] = [];
    for (const task of this.#running) {
      if (task.endsAt > now) {
        still.push(task);
        continue;
      }
      this.#held -= task.price;
      if (!task.fails) this.#charged += task.price;
    }
    this.#running = still;
  }
}
