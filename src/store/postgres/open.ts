import type { FleetStore } from "../fleet-port.js";
import { storeOf } from "../open-store.js";
import { countOpenStore } from "../open-stores.js";
import type { Store } from "../port.js";
import { bind, changes, first, read, write } from "../program.js";
import { PgDb, plainPool } from "./db.js";
import { pgExecutor } from "./executor.js";
import { fleetClaims } from "./fleet-claims.js";
import { fleetLeaders, PgLeaderLock } from "./fleet-leader.js";
import { fleetPollRound, fleetRuns } from "./fleet-runs.js";
import { fleetStatus } from "./fleet-status.js";
import { fleetWorkers } from "./fleet-workers.js";
import { type MigrationReport, migrate, needsMigration } from "./migrate.js";
import { pgPaceRow } from "./pace.js";
import { PaceNews } from "./pace-news.js";
import { pgStoreUnusable } from "./unusable.js";

/** The PostgreSQL store; `pool` is the raw handle, for tests that set up odd states. */
export type PgStore = Store & {
  readonly pool: PgDb["pool"];
  readonly fleet: FleetStore;
  /** What opening it migrated; undefined when opened with `migrate: false`. */
  readonly migration: MigrationReport | undefined;
};

/**
 * Opens the PostgreSQL store at `url` (a `postgres://` connection string) as the store port,
 * creating or updating its schema unless `migrate` is false (then a missing schema is an
 * error). Each operation commits before its promise resolves; a failure that says the
 * database is unusable (a lost connection, a refused login) names it, without its password.
 */
export async function openPgStore(
  url: string,
  options: { migrate?: boolean } = {},
): Promise<PgStore> {
  const db = new PgDb(url);
  let migration: MigrationReport | undefined;
  try {
    await requireSchemaSelected(db);
    if (options.migrate === false) {
      if (await needsMigration(db)) throw missingSchema(url);
    } else migration = await migrate(db);
  } catch (error) {
    await db.close();
    throw pgStoreUnusable(error, url) ?? error;
  }
  return pgStore(db, url, migration);
}

/**
 * A search_path that names no schema that exists leaves nowhere to find or make the tables:
 * said before anything is made (graphile-worker's schema would be, in its own).
 */
async function requireSchemaSelected(db: PgDb): Promise<void> {
  const { rows } = await db.pool.query<{ schema: string | null }>(
    "SELECT current_schema() AS schema",
  );
  if (rows[0]?.schema === null)
    throw Object.assign(new Error("no schema selected"), { code: INVALID_SCHEMA_NAME });
}

/** PostgreSQL's code for "no schema has been selected to create in". */
const INVALID_SCHEMA_NAME = "3F000";

function missingSchema(url: string): Error {
  return Object.assign(new Error("schema missing"), { code: "GWRUN_NO_SCHEMA", url });
}

function pgStore(db: PgDb, url: string, migration: MigrationReport | undefined): PgStore {
  const executor = pgExecutor(db, url);
  const news = new PaceNews(url);
  const learned = bind(executor, {
    /** The learned rate is the rate of the account's pace row (`./pace.ts`), shared by a fleet. */
    learnedRate: read(function* (baseUrl: string) {
      const found = yield* first<{ rate: number }>(
        "SELECT rate FROM gateway_pace WHERE account = ?",
        [baseUrl],
      );
      return found?.rate;
    }),
    /** A new row takes the rate as its ceiling too; a fleet's next open sets the manifest's. */
    saveLearnedRate: write(function* (baseUrl: string, rate: number) {
      yield* changes(
        `INSERT INTO gateway_pace (account, rate, ceiling) VALUES (?, ?, ?)
         ON CONFLICT (account) DO UPDATE SET rate = excluded.rate, updated_at = gwrun_now()`,
        [baseUrl, rate, rate],
      );
    }),
  });
  const fleet: FleetStore = {
    url,
    queuePool: (max) => {
      const pool = plainPool(url, max);
      return { pool, end: () => pool.end() };
    },
    pace: pgPaceRow(db.pool, news),
    leaderLock: (account, workerId) => new PgLeaderLock(url, account, workerId),
    ...bind(executor, fleetWorkers),
    ...bind(executor, fleetClaims),
    ...bind(executor, fleetRuns),
    ...bind(executor, fleetLeaders),
    ...bind(executor, fleetStatus),
  };
  const closed = countOpenStore("postgres");
  const close = async () => {
    try {
      await news.close();
      await db.close();
    } finally {
      closed();
    }
  };
  const reclaimSpace = async () => {
    // Outside any transaction, as VACUUM must be; the space is reused, the files keep their size.
    await db.pool.query("VACUUM events");
    return true;
  };
  return {
    ...storeOf(executor, { ...learned, reclaimSpace, close }),
    ...bind(executor, { recordPollRound: fleetPollRound }),
    pool: db.pool,
    fleet,
    migration,
  };
}
