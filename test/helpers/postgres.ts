import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { TEST_DATABASE_PREFIX } from "./postgres-server.js";

/** Databases on the suite's PostgreSQL server (started by `test/global-setup.ts`). */

declare module "vitest" {
  export interface ProvidedContext {
    /** The suite's server, as a connection string to its `postgres` database. */
    pgServerUrl: string;
  }
}

let admin: pg.Pool | undefined;
let made = 0;

/** A new, empty database of its own on the suite's server; its connection string. */
export async function testDatabase(): Promise<string> {
  const server = inject("pgServerUrl");
  admin ??= new pg.Pool({ connectionString: server, max: 1, allowExitOnIdle: true });
  made += 1;
  const name = `${TEST_DATABASE_PREFIX}${process.pid}_${made}_${randomBytes(3).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}
