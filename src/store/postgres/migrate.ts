import { ownFileUrl } from "../../core/own-files.js";
import { migrationsIn } from "../migrate.js";
import type { PgDb } from "./db.js";
import { QUEUES } from "./queues.js";

/**
 * Numbered migrations of the PostgreSQL store: `sql/pg/NNNNNN-name.sql`, applied in order and
 * recorded in `migrations`, as the SQLite store does with `sql/`.
 */
const SQL_DIR = ownFileUrl("sql/pg/");

/** Serialises migrations of one database across processes (an arbitrary, fixed number). */
const MIGRATE_LOCK = 0x67777275;

/** What a migration did: the migrations applied now, over which version, and what is there after. */
export interface MigrationReport {
  /** The schema version before: 0 for a database without gwrun's schema. */
  from: number;
  /** The schema version now. */
  version: number;
  /** The files applied now, in order; none when the database was up to date. */
  applied: string[];
  /** gwrun's tables in the database's schema now. */
  tables: number;
}

/**
 * Applies the migrations the database lacks, in one transaction under an advisory lock, so two
 * processes starting on a new database do not both apply one; says what it did. `dir` holds
 * the migrations (another only in tests, to leave a database part way).
 */
export async function migrate(db: PgDb, dir: URL = SQL_DIR): Promise<MigrationReport> {
  // graphile-worker's schemas first: the fleet's triggers add their jobs.
  await migrateWorkerQueue(db);
  return db.transaction(async (sql) => {
    await sql.query("SELECT pg_advisory_xact_lock($1)", [MIGRATE_LOCK]);
    await sql.query(
      "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
    );
    const applied = new Set(
      (await sql.query<{ version: number }>("SELECT version FROM migrations")).rows.map(
        (row) => row.version,
      ),
    );
    const from = Math.max(0, ...applied);
    let version = from;
    const now: string[] = [];
    for (const migration of migrationsIn(dir)) {
      if (applied.has(migration.version)) continue;
      await sql.query(migration.sql);
      await sql.query("INSERT INTO migrations (version, name, applied_at) VALUES ($1, $2, $3)", [
        migration.version,
        migration.name,
        Date.now(),
      ]);
      now.push(migration.name);
      version = Math.max(version, migration.version);
    }
    const tables = await sql.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()",
    );
    return { from, version, applied: now, tables: tables.rows[0]?.n ?? 0 };
  });
}

/** graphile-worker's own migrations of each queue's schema (they take their own lock), quietly. */
async function migrateWorkerQueue(db: PgDb): Promise<void> {
  const { runMigrations, Logger } = await import("graphile-worker");
  for (const schema of Object.values(QUEUES))
    await runMigrations({ pgPool: db.pool, schema, logger: new Logger(() => () => {}) });
}

/** Whether the database lacks a migration (a read: nothing is changed). */
export async function needsMigration(db: PgDb): Promise<boolean> {
  const exists = await db.pool.query<{ found: boolean }>(
    "SELECT to_regclass('migrations') IS NOT NULL AS found",
  );
  if (exists.rows[0]?.found !== true) return true;
  const applied = new Set(
    (await db.pool.query<{ version: number }>("SELECT version FROM migrations")).rows.map(
      (row) => row.version,
    ),
  );
  return migrationsIn(SQL_DIR).some((migration) => !applied.has(migration.version));
}
