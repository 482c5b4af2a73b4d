import type Database from "better-sqlite3";
import type { Store } from "./store.js";

const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/** A prepared statement of the store's database, prepared once per database and text. */
export function statement(store: Store, sql: string): Database.Statement {
  let statements = cache.get(store.db);
  if (statements === undefined) {
    statements = new Map();
    cache.set(store.db, statements);
  }
  let prepared = statements.get(sql);
  if (prepared === undefined) {
    prepared = store.db.prepare(sql);
    statements.set(sql, prepared);
  }
  return prepared;
}
