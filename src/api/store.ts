import { existsSync } from "node:fs";
import path from "node:path";
import { ErrorCode, GwError } from "../core/errors.js";
import { commandIo, resolveFromCwd } from "../core/io.js";
import { PROJECT_MARKERS, projectFolder } from "../core/project.js";
import { plural } from "../core/words.js";
import { outputDirTemplate } from "../manifest/index.js";
import {
  adoptLegacyPaths,
  hasPassword,
  inProject,
  openPgStore,
  openStore,
  type RunRow,
  redactUrl,
  type Store,
} from "../store/index.js";

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
 * The store records paths relative to the project folder, so a project moved or mounted
 * elsewhere finds its files. A command that names a manifest takes the project from it. One
 * that does not, started from any folder, takes the first of these where the record's latest
 * run finds its output folder: the project the database sits in, the working folder's, the
 * project that run was started in; else the last (`projectOfRecord`).
 *
 * A PostgreSQL store (for several hosts) is asked for by name: `--store postgres://…`, else
 * GWRUN_STORE. Commands carry its location as the connection string; `storeName` is what
 * messages show of it (never the password).
 */

export { projectFolder, projectOf } from "../core/project.js";

/** Where the store is chosen, as the flags every command that opens one takes. */
export interface StoreFlags {
  /**
   * A SQLite file (a relative path is taken from the working folder); not with `store`.
   * @default process.env.GWRUN_DB, else `data/gwrun.db` of the project folder (when neither `store` nor GWRUN_STORE is set)
   */
  db?: string;
  /**
   * A PostgreSQL connection string, without a password (one in it is refused); not with `db`.
   * @default process.env.GWRUN_STORE (which may hold a password), when `db` is not given
   */
  store?: string;
  /**
   * The project folder the record's paths are relative to, for a command naming no manifest
   * (one that names a manifest takes the manifest's).
   * @default the first of the `db` file's project, the working folder's and the one the latest run was started in where that run's output folder is found
   */
  project?: string;
}

/** True for a PostgreSQL connection string. */
export function isPostgres(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** Where a command's state is: the store, and the project folder its paths are relative to. */
export interface StoreAt {
  /** A SQLite file (absolute), or a PostgreSQL connection string. */
  location: string;
  project: string;
  /**
   * Set when no manifest named the project: the folders it may be, in order; opening the
   * store picks the one its record's runs are in (`projectOfRecord`).
   */
  candidates?: readonly string[];
}

/**
 * The store of a command and its project (see the rule above): `project` when it names a
 * manifest's, else one of `candidates`, settled when the store is opened.
 */
export function storeAt(flags: StoreFlags, named = flags.project): StoreAt {
  if (named !== undefined) {
    const project = resolveFromCwd(named);
    return { location: dbPath(flags, project), project };
  }
  const location = dbPath(flags);
  const candidates = [...new Set([...databaseProject(location), projectFolder(commandIo().cwd)])];
  return { location, project: candidates[0] as string, candidates };
}

/** The project a SQLite file sits in: the folder holding its `data/`, or one with a marker. */
function databaseProject(location: string): string[] {
  if (isPostgres(location)) return [];
  const data = path.dirname(location);
  if (path.basename(location) === "gwrun.db" && path.basename(data) === "data")
    return [path.dirname(data)];
  const found = projectFolder(data);
  return PROJECT_MARKERS.some((marker) => existsSync(path.join(found, marker))) ? [found] : [];
}

/**
 * The project of a record opened without a manifest: the first of `at.candidates`, then the
 * project its latest run was started in, where that run's output folder is; else the project
 * it was started in, as the record says (a folder since removed is still named where it was).
 */
export async function projectOfRecord(record: Store, at: StoreAt): Promise<string> {
  if (at.candidates === undefined) return at.project;
  const run = await record.latestRun();
  if (run === undefined) return at.project;
  const places = [...at.candidates, ...(run.project_dir === null ? [] : [run.project_dir])];
  return (
    places.find((dir) => existsSync(path.resolve(dir, run.output_dir))) ??
    run.project_dir ??
    at.project
  );
}

/**
 * The store: `--store`, else `--db`, else GWRUN_STORE, else GWRUN_DB, else `data/gwrun.db` of
 * the project folder. A file path comes back absolute, a connection string as it is.
 */
export function dbPath(flags: StoreFlags, project = projectFolder(commandIo().cwd)): string {
  if (flags.store !== undefined && flags.db !== undefined)
    throw new GwError(ErrorCode.Usage, "give --db FILE or --store URL, not both");
  if (flags.store !== undefined)
    return withoutPassword(postgresUrl(flags.store, "--store"), "--store");
  if (flags.db !== undefined)
    return isPostgres(flags.db) ? withoutPassword(flags.db, "--db") : resolveFromCwd(flags.db);
  const { env } = commandIo();
  const store = env.GWRUN_STORE;
  if (store !== undefined && store !== "") return postgresUrl(store, "GWRUN_STORE");
  const named = env.GWRUN_DB;
  return named !== undefined ? resolveFromCwd(named) : path.join(project, "data", "gwrun.db");
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

/**
 * A connection string given on the command line, refused when it holds a password: every user
 * of the machine reads a process's arguments (`ps`), not its environment.
 */
function withoutPassword(url: string, flag: string): string {
  if (!hasPassword(url)) return url;
  throw new GwError(
    ErrorCode.Usage,
    `${flag} holds a password, which every user of this machine can read in \`ps\`: nothing was opened`,
    {
      hint: "give the connection string in GWRUN_STORE instead, or leave the password out of it and keep it in ~/.pgpass (or the file PGPASSFILE names) or PGPASSWORD",
    },
  );
}

/** The store as messages name it: the file, or the connection string without its password. */
export function storeName(location: string): string {
  return isPostgres(location) ? redactUrl(location) : location;
}

/**
 * Opens the store at `at.location` (a file, or a connection string: its schema is set up or
 * brought up to date unless `migrate` is false) with the paths of `at.project`.
 */
export async function openStoreAt(
  at: StoreAt,
  options: { migrate?: boolean } = {},
): Promise<Store> {
  return (await openLocated(at, options)).store;
}

/** `openStoreAt`, with the project its paths were found to be relative to. */
async function openLocated(
  at: StoreAt,
  options: { migrate?: boolean },
): Promise<{ store: Store; at: StoreAt }> {
  const record = await openRecordAt(at.location, options);
  try {
    const project = await projectOfRecord(record, at);
    return { store: inProject(record, project), at: { location: at.location, project } };
  } catch (error) {
    await record.close();
    throw error;
  }
}

/**
 * The store at `location` with paths as recorded (relative to each run's project), for a
 * worker that works runs of any project. A record kept with absolute paths is rewritten
 * relative to its project once, when first opened.
 */
export async function openRecordAt(
  location: string,
  options: { migrate?: boolean } = {},
): Promise<Store> {
  const store = isPostgres(location) ? await openPgStore(location, options) : openStore(location);
  try {
    await adoptLegacyPaths(store, outputDirTemplate);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

/**
 * Runs `fn` with the store open, and closes it whatever happens; `fn` is told the project the
 * store's paths are relative to.
 */
export async function withStore<T>(
  at: StoreAt,
  fn: (store: Store, located: StoreAt) => Promise<T>,
  options: { migrate?: boolean } = {},
): Promise<T> {
  const { store, at: located } = await openLocated(at, options);
  try {
    return await fn(store, located);
  } finally {
    await store.close();
  }
}

/** Like `withStore` for a command that only reads: a missing database is an error, not made. */
export async function withExistingStore<T>(
  at: StoreAt,
  fn: (store: Store, located: StoreAt) => Promise<T>,
): Promise<T> {
  // Reads need the schema, and do not make it.
  if (isPostgres(at.location)) return withStore(at, fn, { migrate: false });
  if (!existsSync(at.location)) {
    throw new GwError(
      ErrorCode.Usage,
      `no state database at ${at.location}: nothing has run here yet`,
      { hint: "run a manifest first, or name the database with --db (or GWRUN_DB)" },
    );
  }
  return withStore(at, fn);
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
 * `gwrun store migrate`: sets up the PostgreSQL store's schema, or brings it up to date; what
 * it did, in a line that names the store.
 */
export async function migrateStore(flags: StoreFlags): Promise<string> {
  const location = dbPath(flags);
  if (!isPostgres(location))
    throw new GwError(ErrorCode.Usage, "store migrate sets up a PostgreSQL store", {
      hint: "name it with --store postgres://… (or GWRUN_STORE); a SQLite file is set up when first opened",
    });
  const store = await openPgStore(location);
  try {
    // As any command's first open would: a record kept with absolute paths is made relative.
    await adoptLegacyPaths(store, outputDirTemplate);
  } finally {
    await store.close();
  }
  const name = storeName(location);
  const report = store.migration;
  if (report === undefined || report.applied.length === 0)
    return `the store at ${name} is up to date (schema version ${report?.version ?? "?"})`;
  if (report.from === 0)
    return `created the schema of the store at ${name}: ${plural(report.tables, "table")}, version ${report.version}`;
  return `brought the store at ${name} from schema version ${report.from} to ${report.version}: applied ${report.applied.join(", ")}`;
}
