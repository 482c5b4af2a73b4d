import pg from "pg";
import type { TestProject } from "vitest/node";
import { openPgStore } from "../src/store/index.js";
import { databaseUrl, startTestServer, TEST_DATABASE_PREFIX } from "./helpers/postgres-server.js";

interface SuiteServer {
  url: string;
  template: string;
  stop(): Promise<void>;
}

/** The server every project of one run shares, and how many projects still use it. */
interface Shared {
  users: number;
  ready: Promise<SuiteServer>;
}

// Each project loads its global setup apart, so the one server is kept on the process.
const KEY = Symbol.for("gwrun.test.postgres");
const holder = globalThis as { [KEY]?: Shared };

/**
 * Global setup of the store and e2e projects: the PostgreSQL tests share one server and one
 * schema template, started by the first project that needs them and stopped after the last.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  holder[KEY] ??= { users: 0, ready: startSuiteServer() };
  const shared = holder[KEY];
  shared.users += 1;
  const server = await shared.ready;
  project.provide("pgServerUrl", server.url);
  project.provide("pgTemplate", server.template);
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete holder[KEY];
    await server.stop();
  };
}

async function startSuiteServer(): Promise<SuiteServer> {
  const server = await startTestServer();
  return {
    url: server.url,
    template: await schemaTemplate(server.url),
    async stop() {
      if (server.external) await dropTestDatabases(server.url);
      await server.stop();
    },
  };
}

/** A database with gwrun's schema, for tests to copy; its name. */
async function schemaTemplate(url: string): Promise<string> {
  const name = `${TEST_DATABASE_PREFIX}template_${process.pid}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  await (await openPgStore(databaseUrl(url, name))).close();
  return name;
}

/** The databases the tests made on a server the suite did not start. */
async function dropTestDatabases(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [TEST_DATABASE_PREFIX],
    );
    for (const { datname } of rows)
      await client.query(
        `DROP DATABASE IF EXISTS ${client.escapeIdentifier(datname)} WITH (FORCE)`,
      );
  } finally {
    await client.end();
  }
}
