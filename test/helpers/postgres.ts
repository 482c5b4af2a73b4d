import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { databaseUrl, TEST_DATABASE_PREFIX } from "./postgres-server.js";

/** Databases on the suite's PostgreSQL server (started by `test/postgres-setup.ts`). */

declare module "vitest" {
  export interface ProvidedContext {
    /** The suite's server, as a connection string to its `postgres` database. */
    pgServerUrl: string;
    /** A database holding the gwrun schema, copied for each test that wants one. */
    pgTemplate: string;
  }
}

let admin: pg.Pool | undefined;
let made = 0;

/**
 * A new database of its own on the suite's server, empty or (`schema`) with gwrun's schema in
 * place, copied from a template (quicker than migrating each); its connection string.
 */
export async function testDatabase(options: { schema?: boolean } = {}): Promise<string> {
  const server = inject("pgServerUrl");
  admin ??= new pg.Pool({ connectionString: server, max: 1, allowExitOnIdle: true });
  made += 1;
  const name = `${TEST_DATABASE_PREFIX}${process.pid}_${made}_${randomBytes(3).toString("hex")}`;
  const template = options.schema === true ? ` TEMPLATE ${inject("pgTemplate")}` : "";
  await admin.query(`CREATE DATABASE ${name}${template}`);
  return databaseUrl(server, name);
}

/**
 * Moves the fleet's database clock (`gwrun_now()`) `ms` on: pace, heartbeats and the reaper
 * see that much more time gone by, without a test sleeping for it.
 */
export async function moveDatabaseClock(sql: pg.Pool | pg.Client, ms: number): Promise<void> {
  await sql.query(
    "UPDATE gwrun_clock SET shift = shift + make_interval(secs => $1::float8 / 1000)",
    [ms],
  );
}
