import { createRequire } from "node:module";
import Database from "better-sqlite3";

/** The SQLite gwrun's default store runs on, or why it cannot load in this Node. */
export type SqliteLibrary =
  | { ok: true; sqlite: string; driver: string }
  | { ok: false; driver: string; problem: string; hint: string };

const require = createRequire(import.meta.url);
const DRIVER = `better-sqlite3 ${(require("better-sqlite3/package.json") as { version: string }).version}`;

/**
 * Opens an in-memory database to ask SQLite its version: better-sqlite3 loads its native
 * addon only then, and an addon built for another Node version fails only then.
 */
export function inspectSqlite(): SqliteLibrary {
  try {
    const db = new Database(":memory:");
    try {
      const row = db.prepare("SELECT sqlite_version() AS version").get() as { version: string };
      return { ok: true, sqlite: row.version, driver: DRIVER };
    } finally {
      db.close();
    }
  } catch (error) {
    const first = error instanceof Error ? (error.message.split("\n", 1)[0] ?? "") : String(error);
    return {
      ok: false,
      driver: DRIVER,
      ...(addonUnloadable(error) ?? {
        problem: `${DRIVER} cannot open a database: ${first}`,
        hint: "reinstall gwrun's dependencies (npm ci)",
      }),
    };
  }
}

/**
 * What to say when better-sqlite3's native addon does not load, as under a Node other than the
 * one `npm ci` built it for; undefined for any other error.
 */
export function addonUnloadable(error: unknown): { problem: string; hint: string } | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_DLOPEN_FAILED" || !String(message).includes("better_sqlite3")) {
    return undefined;
  }
  return {
    problem: `${DRIVER} cannot load its native addon in Node ${process.versions.node}: it was built for another Node version`,
    hint: "run `npm rebuild better-sqlite3` under this Node, or use the Node it was installed with (`gwrun doctor` shows what works)",
  };
}
