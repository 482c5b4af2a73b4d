import { existsSync } from "node:fs";
import path from "node:path";
import { ErrorCode, GwError } from "../core/errors.js";
import { openStore, type RunRow, type Store } from "../store/index.js";

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
 */

const MARKERS = [".git", "package.json", path.join("data", "gwrun.db")];

/** The project folder of `start` (a folder): see the rule above. */
export function projectFolder(start: string): string {
  const from = path.resolve(start);
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (MARKERS.some((marker) => existsSync(path.join(dir, marker)))) return dir;
    if (path.dirname(dir) === dir) return from;
  }
}

/** The project folder of a manifest file. */
export function projectOf(manifestFile: string): string {
  return projectFolder(path.dirname(path.resolve(manifestFile)));
}

/** The state database: `--db`, else GWRUN_DB, else `data/gwrun.db` of the project folder. */
export function dbPath(flags: { db?: string }, project = projectFolder(process.cwd())): string {
  const named = flags.db ?? process.env.GWRUN_DB;
  return named !== undefined ? path.resolve(named) : path.join(project, "data", "gwrun.db");
}

/** Runs `fn` with the store open, and closes it whatever happens. */
export async function withStore<T>(db: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(db);
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
      ref === undefined ? `no runs in ${db}` : `no run ${ref} in ${db}`,
      { hint: "`gwrun runs` lists them" },
    );
  }
  return run;
}
