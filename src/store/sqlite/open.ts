import type Database from "better-sqlite3";
import { storeOf } from "../open-store.js";
import { countOpenStore } from "../open-stores.js";
import type { Store } from "../port.js";
import { bind, changes, first, read, write } from "../program.js";
import { SqliteDb } from "./db.js";
import { runStep, type StepRunner, sqliteExecutor } from "./executor.js";
import { GroupCommit } from "./group-commit.js";
import { storeUnusable } from "./unusable.js";

/** The SQLite store; `db` is the raw handle, for tests that set up odd states. */
export type SqliteStore = Store & { readonly db: Database.Database };

export interface SqliteStoreOptions {
  /**
   * Wraps how each step of the store's programs runs (default: as it is): one seam that sees
   * every statement, where a disk that fills can be met on any machine.
   */
  steps?: (own: StepRunner) => StepRunner;
}

/**
 * Opens (creating and migrating) the state database at `file` as the store port. Each
 * operation commits before its promise resolves: most are one synchronous better-sqlite3
 * call; the transitions every task makes are committed together per turn (`GroupCommit`).
 */
export function openStore(file: string, options: SqliteStoreOptions = {}): SqliteStore {
  let s: SqliteDb;
  try {
    s = new SqliteDb(file);
  } catch (error) {
    throw storeUnusable(error, file) ?? error;
  }
  const group = new GroupCommit(s.db);
  const executor = sqliteExecutor(s, group, file, options.steps?.(runStep) ?? runStep);
  const learned = bind(executor, {
    learnedRate: read(function* (baseUrl: string) {
      const found = yield* first<{ submit_rate: number | null }>(
        "SELECT submit_rate FROM gateway_state WHERE base_url = ?",
        [baseUrl],
      );
      return found?.submit_rate ?? undefined;
    }),
    saveLearnedRate: write(function* (baseUrl: string, rate: number) {
      yield* changes(
        `INSERT INTO gateway_state (base_url, submit_rate) VALUES (?, ?)
         ON CONFLICT (base_url) DO UPDATE SET submit_rate = excluded.submit_rate`,
        [baseUrl, rate],
      );
    }),
  });
  const closed = countOpenStore("sqlite");
  const close = async () => {
    group.flush();
    s.close();
    closed();
  };
  const reclaimSpace = async () => {
    group.flush();
    try {
      s.db.exec("VACUUM");
      return true;
    } catch (error) {
      // A run in another process: its space is reused by later writes all the same.
      if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY") === true) return false;
      throw error;
    }
  };
  return { db: s.db, ...storeOf(executor, { ...learned, reclaimSpace, close }) };
}
