import path from "node:path";
import { ErrorCode, GwError } from "../core/errors.js";
import { openStore, type RunRow, type Store } from "../store/index.js";

/** The state database as commands open it: where it is, a scope that closes it, a run by id. */

/** The state database: `--db`, else GWRUN_DB, else data/gwrun.db. */
export function dbPath(flags: { db?: string }): string {
  return flags.db ?? process.env.GWRUN_DB ?? path.join("data", "gwrun.db");
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

/** A run by id, or the latest one. */
export async function findRun(store: Store, db: string, ref: string | undefined): Promise<RunRow> {
  const run = ref === undefined ? await store.latestRun() : await store.run(Number(ref));
  if (run === undefined) {
    throw new GwError(
      ErrorCode.Usage,
      ref === undefined ? `no runs in ${db}` : `no run ${ref} in ${db}`,
      {
        hint: "`gwrun runs` lists them",
      },
    );
  }
  return run;
}
