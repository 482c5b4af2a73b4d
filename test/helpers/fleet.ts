import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import pg from "pg";
import { type SimCounters, type SimOptionsInput, startSimulator } from "../../src/sim/index.js";
import { type CliResult, gwrunAsync, gwrunHere } from "./cli.js";
import { tempDir } from "./manifest.js";
import { testDatabase } from "./postgres.js";
import { FAST } from "./run.js";
import { mixedJobs } from "./run-manifests.js";
import { until } from "./until.js";

/**
 * A fleet of real processes for end-to-end tests: `gwrun worker`s spawned against a fresh
 * PostgreSQL store and a simulator, as a user would run them; the simulator, `gwrun run
 * --detach` and the other commands run in the test's process.
 */

export interface FleetProcess {
  child: ChildProcess;
  done: Promise<CliResult>;
  /** `pid@host`: the id its claims and the workers table name. */
  id: string;
  /** What it has written to stderr so far. */
  stderr(): string;
}

export interface FleetScope {
  /** The store's connection string. */
  url: string;
  /** The simulator's base URL. */
  simUrl: string;
  dir: string;
  outputDir: string;
  /** A pool on the store, for the test's own queries. */
  db: pg.Pool;
  counters(): Promise<SimCounters>;
  /** Writes a manifest into the scope's folder; its path. */
  write(name: string, yaml: string): string;
  /** `gwrun run <manifest> --detach` against the store and the simulator. */
  record(manifest: string): Promise<CliResult>;
  /** A `gwrun worker` on the store, with `args`. */
  worker(args?: readonly string[]): FleetProcess;
  /** Any other command against the store. */
  gwrun(args: readonly string[]): Promise<CliResult>;
}

const ENV = { GW_API_KEY: "test-key" };

/**
 * Runs `fn` against a new store and a simulator with `simOptions` (in this process: the
 * workers reach it over HTTP as they would a gateway); kills what is left.
 */
export async function withFleet<T>(
  simOptions: SimOptionsInput,
  fn: (scope: FleetScope) => Promise<T>,
): Promise<T> {
  const [url, sim] = await Promise.all([
    testDatabase({ schema: true }),
    startSimulator({ timeScale: FAST, mediaVariants: 4, ...simOptions }),
  ]);
  const dir = tempDir();
  const db = new pg.Pool({ connectionString: url, max: 2 });
  const children: ChildProcess[] = [];
  const spawnCli = (args: readonly string[]) => {
    // The store's connection string holds a password: it goes in the environment, as a user's.
    const run = gwrunAsync(args, { cwd: dir, env: { ...ENV, GWRUN_STORE: url } });
    children.push(run.child);
    return run;
  };
  const here = (args: readonly string[]) =>
    gwrunHere(args, { cwd: dir, env: { ...ENV, GWRUN_STORE: url } });
  const scope: FleetScope = {
    url,
    simUrl: sim.url,
    dir,
    outputDir: path.join(dir, "out"),
    db,
    counters: async () => (await (await fetch(`${sim.url}/__sim/counters`)).json()) as SimCounters,
    write(name, yaml) {
      const file = path.join(dir, name);
      writeFileSync(file, yaml);
      return file;
    },
    // Recording a run and asking about it need no process of their own: only the workers do.
    record: (manifest) => here(["run", manifest, "--detach", "--base-url", sim.url]),
    worker(args = []) {
      const run = spawnCli(["worker", ...args]);
      let stderr = "";
      run.child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      return { ...run, id: `${run.child.pid}@${hostname()}`, stderr: () => stderr };
    },
    gwrun: (args) => here(args),
  };
  try {
    return await fn(scope);
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all([db.end(), sim.close()]);
  }
}

/** Waits until `check` returns something other than undefined (polled), or fails after `ms`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  ms = 45_000,
): Promise<T> {
  return until(what, check, { timeoutMs: ms, everyMs: 100 });
}

/** How many tasks the store holds in each state. */
export async function statesOf(db: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await db.query<{ state: string; n: number }>(
    "SELECT state, count(*)::int AS n FROM jobs GROUP BY state",
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** A fleet manifest of `images` distinct small pictures, its outputs in `outputDir`. */
export function fleetManifest(
  outputDir: string,
  images: number,
  options: { submitRate?: string; poll?: string } = {},
): string {
  return `version: 1
name: fleet
limits: { submit_rate: ${options.submitRate ?? "200/s"}, max_in_flight: 40, downloads: 4 }
poll: { first_after: ${options.poll ?? "50ms"}, every: ${options.poll ?? "50ms"}, batch_size: 50 }
retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }
output: { dir: ${JSON.stringify(outputDir)} }
${mixedJobs(images, 0)}`;
}

/** Run 1's status, once it is no longer running. */
export function runEnded(db: pg.Pool, ms?: number): Promise<string> {
  return waitFor(
    "run 1 to end",
    async () => {
      const { rows } = await db.query<{ status: string }>("SELECT status FROM runs WHERE id = 1");
      const status = rows[0]?.status;
      return status === undefined || status === "running" ? undefined : status;
    },
    ms,
  );
}

/** How many tasks `workerId` holds in `submitting`. */
export async function submittingBy(db: pg.Pool, workerId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
    [workerId],
  );
  return rows[0]?.n ?? 0;
}

/** The worker holding the most `submitting` claims now, once one holds at least `least`. */
export async function busiestSubmitter(db: pg.Pool, least = 1): Promise<string | undefined> {
  const { rows } = await db.query<{ claimed_by: string; n: number }>(
    `SELECT claimed_by, count(*)::int AS n FROM jobs WHERE state = 'submitting'
     GROUP BY claimed_by ORDER BY n DESC LIMIT 1`,
  );
  const top = rows[0];
  return top !== undefined && top.n >= least ? top.claimed_by : undefined;
}

/** The workers table, by id. */
export async function workerRows(
  db: pg.Pool,
): Promise<Map<string, { stopped_at: Date | null; dead_at: Date | null }>> {
  const { rows } = await db.query<{ id: string; stopped_at: Date | null; dead_at: Date | null }>(
    "SELECT id, stopped_at, dead_at FROM workers",
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Exits within `ms`, or fails saying so; its result. */
export async function exitsWithin(
  worker: FleetProcess,
  ms: number,
): Promise<CliResult & { tookMs: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${worker.id} still running ${ms} ms after the signal`)),
      ms,
    );
  });
  try {
    const result = await Promise.race([worker.done, late]);
    return { ...result, tookMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
