import type Database from "better-sqlite3";

interface Waiting {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { value?: unknown; error?: unknown; failed: boolean };

/** Thrown to roll a turn back when one of its writes failed (no stack trace to take). */
const WRITE_FAILED = Symbol("a write of the turn failed");

/**
 * The writes asked for in one turn of the event loop, committed together, every promise
 * settled after the commit. A busy run's claims, receipts, poll rounds, downloads and checks
 * arrive in the same turns; one commit for all of them saves most of what SQLite spends per
 * commit. A failed write undoes only itself: the turn is then rolled back and done again with
 * each write in a savepoint of its own. Writes are store operations, so doing one again after
 * a rollback gives the same answer; savepoints only then, because they cost as much as the
 * writes themselves.
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
    let outcomes: Outcome[];
    try {
      outcomes = this.#together(batch) ?? this.#apart(batch);
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

  /** All writes in one transaction; undefined (and nothing recorded) when one of them fails. */
  #together(batch: readonly Waiting[]): Outcome[] | undefined {
    const outcomes: Outcome[] = [];
    try {
      this.#commit(() => {
        for (const { write } of batch) {
          try {
            outcomes.push({ value: write(), failed: false });
          } catch {
            throw WRITE_FAILED;
          }
        }
      });
    } catch (error) {
      if (error === WRITE_FAILED) return undefined;
      throw error;
    }
    return outcomes;
  }

  /** Each write in a savepoint of its own: one that fails leaves the others recorded. */
  #apart(batch: readonly Waiting[]): Outcome[] {
    const outcomes: Outcome[] = [];
    this.#commit(() => {
      for (const { write } of batch) {
        try {
          outcomes.push({ value: this.#savepoint(write), failed: false });
        } catch (error) {
          outcomes.push({ error, failed: true });
        }
      }
    });
    return outcomes;
  }
}
