import { createRequire } from "node:module";
import Database from "better-sqlite3";

/** The SQLite gwrun's default store runs on, or why it cannot load in this Node. */
export type SqliteLibrary =
  | { ok: true; sqlite: string; driver: string }
  | { ok: false; driver: string; problem: string; hint: string };

const require = createRequire(import.meta.url);

/**
 * Opens an in-memory database to ask SQLite its version: better-sqlite3 loads its native
 * addon only then, and an addon built for another Node version fails only then.
 */
export function inspectSqlite(): SqliteLibrary {
  const driver = `better-sqlite3 ${(require("better-sqlite3/package.json") as { version: string }).version}`;
  try {
    const db = new Database(":memory:");
    try {
      const row = db.prepare("SELECT sqlite_version() AS version").get() as { version: string };
      return { ok: true, sqlite: row.version, driver };
    } finally {
      db.close();
    }
  } catch (error) {
    const otherNode = (error as NodeJS.ErrnoException).code === "ERR_DLOPEN_FAILED";
    const first = error instanceof Error ? (error.message.split("\n", 1)[0] ?? "") : String(error);
    return {
      ok: false,
      driver,
      problem: otherNode
        ? `${driver} cannot load its native addon in Node ${process.versions.node}: it was built for another Node version`
        : `${driver} cannot open a database: ${first}`,
      hint: otherNode
        ? "run `npm rebuild better-sqlite3` under this Node, or use the Node it was installed with"
        : "reinstall gwrun's dependencies (npm ci)",
    };
  }
}
