import pg from "pg";
import type { TestProject } from "vitest/node";
import { openPgStore } from "../src/store/index.js";
import { buildCli } from "./helpers/build.js";
import { databaseUrl, startTestServer, TEST_DATABASE_PREFIX } from "./helpers/postgres-server.js";
import { skippedTestsNoticeHere } from "./helpers/system-tools.js";

/**
 * Runs once per `npm test`. End-to-end tests spawn bin/gwrun.js, which runs the compiled
 * dist/: build it first. The PostgreSQL tests share one server, started meanwhile and stopped
 * at the end. A skipped system test is announced once, here.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const notice = skippedTestsNoticeHere();
  if (notice !== undefined) process.stderr.write(`${notice}\n`);
  const [server] = await Promise.all([startTestServer(), buildCli()]);
  project.provide("pgServerUrl", server.url);
  project.provide("pgTemplate", await schemaTemplate(server.url));
  return async () => {
    if (server.external) await dropTestDatabases(server.url);
    await server.stop();
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
