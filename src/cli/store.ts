import { existsSync } from "node:fs";
import path from "node:path";
import { ErrorCode, GwError } from "../core/errors.js";
import { projectFolder } from "../core/project.js";
import { openPgStore, openStore, type RunRow, redactUrl, type Store } from "../store/index.js";

/**
 * Where a command's state and outputs live, whatever folder it is started from, and the
 * state database as commands open it.
 *
 * The rule: a manifest belongs to its project folder — the nearest folder, from the
 * manifest's own upward, that holds `.git`, `package.json` or `data/gwrun.db`; without one,
 * the manifest's own folder. A relative `output.dir` and the default state database
 * (`data/gwrun.db`) resolve against it. Commands that name no manifest (status, runs,
 * report, resume, retry) look from the working folder the same way. `--db` and `GWRUN_DB`
 * still win (a relative one is taken from the working folder).
 *
 * A PostgreSQL store (for several hosts) is asked for by name: `--store postgres://…`, else
 * GWRUN_STORE. Commands carry its location as the connection string; `storeName` is what
 * messages show of it (never the password).
 */

export { projectFolder, projectOf } from "../core/project.js";

/** Where the store is chosen, as the flags every command that opens one takes. */
export interface StoreFlags {
  /** A SQLite file. */
  db?: string;
  /** A PostgreSQL connection string. */
  store?: string;
}

/** True for a PostgreSQL connection string. */
export function isPostgres(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * The store: `--store`, else `--db`, else GWRUN_STORE, else GWRUN_DB, else `data/gwrun.db` of
 * the project folder. A file path comes back absolute, a connection string as it is.
 */
export function dbPath(flags: StoreFlags, project = projectFolder(process.cwd())): string {
  if (flags.store !== undefined && flags.db !== undefined)
    throw new GwError(ErrorCode.Usage, "give --db FILE or --store URL, not both");
  if (flags.store !== undefined) return postgresUrl(flags.store, "--store");
  if (flags.db !== undefined) return isPostgres(flags.db) ? flags.db : path.resolve(flags.db);
  const store = process.env.GWRUN_STORE;
  if (store !== undefined && store !== "") return postgresUrl(store, "GWRUN_STORE");
  const named = process.env.GWRUN_DB;
  return named !== undefined ? path.resolve(named) : path.join(project, "data", "gwrun.db");
}

/** The store a command started here without flags would open (none when that is unusable). */
export function defaultStore(): string | undefined {
  try {
    return dbPath({});
  } catch {
    return undefined;
  }
}

function postgresUrl(value: string, where: string): string {
  if (isPostgres(value)) return value;
  throw new GwError(ErrorCode.Usage, `${where} takes a postgres://… connection string`, {
    hint: "a SQLite state database is named with --db FILE (or GWRUN_DB)",
  });
}

/** The store as messages name it: the file, or the connection string without its password. */
export function storeName(location: string): string {
  return isPostgres(location) ? redactUrl(location) : location;
}

/**
 * Opens the store at `location` (a file, or a connection string: its schema is set up or
 * brought up to date unless `migrate` is false).
 */
export async function openStoreAt(
  location: string,
  options: { migrate?: boolean } = {},
): Promise<Store> {
  return isPostgres(location) ? openPgStore(location, options) : openStore(location);
}

/** Runs `fn` with the store open, and closes it whatever happens. */
export async function withStore<T>(
  db: string,
  fn: (store: Store) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const store = await openStoreAt(db, options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Like `withStore` for a command that only reads: a missing database is an error, not made. */
export async function withExistingStore<T>(
  db: string,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  // Reads need the schema, and do not make it.
  if (isPostgres(db)) return withStore(db, fn, { migrate: false });
  if (!existsSync(db)) {
    throw new GwError(ErrorCode.Usage, `no state database at ${db}: nothing has run here yet`, {
      hint: "run a manifest first, or name the database with --db (or GWRUN_DB)",
    });
  }
  return withStore(db, fn);
}

/** A run by id, or the latest one. */
export async function findRun(store: Store, db: string, ref: string | undefined): Promise<RunRow> {
  const run = ref === undefined ? await store.latestRun() : await store.run(Number(ref));
  if (run === undefined) {
    throw new GwError(
      ErrorCode.Usage,
      ref === undefined ? `no runs in ${storeName(db)}` : `no run ${ref} in ${storeName(db)}`,
      { hint: "`gwrun runs` lists them" },
    );
  }
  return run;
}

/**
 * `gwrun store migrate`: sets up the PostgreSQL store's schema, or brings it up to date; the
 * store as messages name it.
 */
export async function migrateStore(flags: StoreFlags): Promise<string> {
  const location = dbPath(flags);
  if (!isPostgres(location))
    throw new GwError(ErrorCode.Usage, "store migrate sets up a PostgreSQL store", {
      hint: "name it with --store postgres://… (or GWRUN_STORE); a SQLite file is set up when first opened",
    });
  const store = await openStoreAt(location);
  await store.close();
  return storeName(location);
}
