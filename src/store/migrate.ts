import { readdirSync } from "node:fs";
import type Database from "better-sqlite3";
import { readOwnFile } from "../core/file-gate.js";
import { ownFileUrl } from "../core/own-files.js";

/**
 * Numbered migrations: `sql/NNNNNN-name.sql`, applied in order and
 * recorded in `migrations`, so a database is brought up to date whatever version it is at.
 */
const SQL_DIR = ownFileUrl("sql/");

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered migrations in `dir` (SQLite's `sql/`, PostgreSQL's `sql/pg/`), in order. */
export function migrationsIn(dir: URL): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d{6}-[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number(file.slice(0, 6)),
      name: file,
      sql: readOwnFile(new URL(file, dir)).toString("utf8"),
    }));
}

/**
 * Applies the migrations a database lacks; returns its schema version. Reading the version
 * and applying happen under one write lock, so two gwrun processes opening a new database
 * at once do not both apply the same migration.
 */
export function migrate(db: Database.Database): number {
  const apply = db.transaction(() => {
    db.exec(
      "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    // Every file not yet applied, not only those above the highest: branches numbered apart
    // may land in any order.
    const applied = new Set(
      (db.prepare("SELECT version FROM migrations").all() as { version: number }[]).map(
        (row) => row.version,
      ),
    );
    let version = Math.max(0, ...applied);
    for (const migration of migrationsIn(SQL_DIR)) {
      if (applied.has(migration.version)) continue;
      db.exec(migration.sql);
      db.prepare("INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        migration.version,
        migration.name,
        Date.now(),
      );
      version = Math.max(version, migration.version);
    }
    return version;
  });
  return apply.immediate();
}
