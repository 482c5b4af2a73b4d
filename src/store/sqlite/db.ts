import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { SQLITE, type Statement, textIn } from "../dialect.js";
import { migrate } from "../migrate.js";

/** A statement prepared once per text, and its rows' shape. */
interface Prepared {
  statement: Database.Statement;
  build: (values: unknown[]) => unknown;
}

/**
 * The SQLite handle: opened in WAL mode and migrated, with one cache of prepared statements
 * and one transaction wrapper for the adapter.
 */
export class SqliteDb {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  /** Statements of the store's SQL, by SQLite's text: those read for rows, those run for changes. */
  readonly #readers = new Map<string, Prepared>();
  readonly #writers = new Map<string, Prepared>();
  readonly #transaction: (fn: () => unknown) => unknown;

  constructor(file: string) {
    if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const db = new Database(file);
    try {
      // Another gwrun on the same file waits for its turn instead of failing.
      db.pragma("busy_timeout = 10000");
      enableWal(db);
      // Durable at every commit point of WAL, without an fsync per transaction.
      db.pragma("synchronous = NORMAL");
      // Checkpoint the log less often: a run commits at every step of every task.
      db.pragma("wal_autocheckpoint = 10000");
      // Keys are hashes, so a run's moves land all over its tables and indexes: 64 MB of pages
      // (SQLite's default is 2 MB) keeps those of a run of tens of thousands of tasks at hand.
      db.pragma("cache_size = -65536");
      migrate(db);
    } catch (error) {
      // A program that goes on (the API, a worker) keeps no handle on a file it cannot use.
      db.close();
      throw error;
    }
    this.db = db;
    // Immediate: take the write lock up front, so a read-then-write transaction waits for
    // another gwrun on the same file instead of failing with a stale snapshot.
    this.#transaction = db.transaction((fn: () => unknown) => fn()).immediate;
  }

  /** A prepared statement of SQLite's own text, prepared once per text. */
  sql(text: string): Database.Statement {
    let statement = this.#statements.get(text);
    if (statement === undefined) {
      statement = this.db.prepare(text);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  /**
   * The rows a statement of the store's SQL gives, as ordinary objects of one shape.
   * better-sqlite3 builds each row object in V8's dictionary mode: a task row of 30 columns
   * takes about 1.6 KB and is slow to copy into the compact object a run holds thousands of.
   * Read as arrays and laid out by one object literal per statement, they come out as compact
   * in a third of the time (10,000 tasks at a run's start: 67 ms instead of 227).
   */
  rows<T>(sql: Statement, params: readonly unknown[]): T[] {
    const { statement, build } = this.#prepare(textIn(sql, SQLITE), true);
    return (statement.all(...valuesOf(params)) as unknown[][]).map(build) as T[];
  }

  /** How many rows a statement of the store's SQL changed. */
  changes(sql: Statement, params: readonly unknown[]): number {
    const { statement } = this.#prepare(textIn(sql, SQLITE), false);
    return statement.run(...valuesOf(params)).changes;
  }

  #prepare(text: string, reads: boolean): Prepared {
    const cache = reads ? this.#readers : this.#writers;
    let prepared = cache.get(text);
    if (prepared === undefined) {
      const statement = this.db.prepare(text);
      const names = reads ? statement.columns().map((column) => column.name) : [];
      // One column is read as bare values: a row array of one value would cost ten times as
      // much (a run's order of 300,000 tasks is read so).
      if (names.length === 1) statement.pluck(true);
      else if (reads) statement.raw(true);
      prepared = { statement, build: rowBuilder(names) };
      cache.set(text, prepared);
    }
    return prepared;
  }

  /**
   * Runs `fn` in one transaction. A nested call joins the outer one (no savepoint: an error
   * inside rolls the whole transaction back).
   */
  transaction<T>(fn: () => T): T {
    return this.db.inTransaction ? fn() : (this.#transaction(fn) as T);
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Switches to WAL. SQLite answers this pragma "busy" at once, without waiting, while another
 * process is creating the same new database, so it is retried for a while.
 */
function enableWal(db: Database.Database): void {
  for (let attempt = 0; ; attempt++) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || attempt >= 200) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
    }
  }
}

/**
 * Parameters as SQLite binds them: an array (`Dialect.anyOf`'s) as JSON text, for `json_each`
 * (better-sqlite3 would spread it into parameters of its own).
 */
function valuesOf(params: readonly unknown[]): unknown[] {
  if (!params.some(Array.isArray)) return params as unknown[];
  return params.map((value) => (Array.isArray(value) ? JSON.stringify(value) : value));
}

/**
 * A function that lays a row's values out as an object literal with these column names (our
 * schema's, quoted): every row gets one shape, its fields stored in the object itself.
 */
function rowBuilder(names: readonly string[]): (values: unknown[]) => unknown {
  if (names.length === 1)
    return new Function("value", `return { ${JSON.stringify(names[0])}: value };`) as (
      value: unknown,
    ) => unknown;
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function("values", `return { ${fields.join(", ")} };`) as (
    values: unknown[],
  ) => unknown;
}
