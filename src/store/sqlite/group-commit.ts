import type Database from "better-sqlite3";

interface Waiting {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The writes asked for in one turn of the event loop, committed together: one transaction, each
 * write in a savepoint of its own (its failure undoes only itself), every promise settled after
 * the commit. A busy run's claims, receipts, poll rounds, downloads and checks arrive in the
 * same turns; one commit for all of them saves most of what SQLite spends per commit.
 */
export class GroupCommit {
  readonly #commit: (writes: () => void) => void;
  readonly #savepoint: (write: () => unknown) => unknown;
  #waiting: Waiting[] = [];

  constructor(db: Database.Database) {
    this.#commit = db.transaction((writes: () => void) => writes()).immediate;
    // Called inside the commit's transaction, better-sqlite3 makes it a savepoint.
    this.#savepoint = db.transaction((write: () => unknown) => write());
  }

  /** Runs `write` with the others of this turn; resolves once they have committed. */
  write<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(() => this.flush());
      this.#waiting.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Commits what waits now (before the database closes). */
  flush(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    if (batch.length === 0) return;
    const outcomes: { value?: unknown; error?: unknown; failed: boolean }[] = [];
    try {
      this.#commit(() => {
        for (const { write } of batch) {
          try {
            outcomes.push({ value: this.#savepoint(write), failed: false });
          } catch (error) {
            outcomes.push({ error, failed: true });
          }
        }
      });
    } catch (error) {
      // Nothing of the turn was recorded.
      for (const entry of batch) entry.reject(error);
      return;
    }
    batch.forEach((entry, i) => {
      const outcome = outcomes[i];
      if (outcome?.failed) entry.reject(outcome.error);
      else entry.resolve(outcome?.value);
    });
  }
}
