import type { ChildProcess } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type SimOptionsInput, type Simulator, startSimulator } from "../../src/sim/index.js";
import {
  inProject,
  type OutputRow,
  openPgStore,
  openStore,
  type Store,
  type TaskRow,
} from "../../src/store/index.js";
import { type CliResult, gwrunAsync, gwrunHere } from "./cli.js";
import { tempDir } from "./manifest.js";

/**
 * A scope for end-to-end runs: a simulator in this process (fast time, few distinct
 * pictures), a temp folder for the manifest, database and outputs, and `gwrun` run against
 * them.
 */
export interface RunScope {
  sim: Simulator;
  dir: string;
  /** The store: a SQLite file, or a PostgreSQL connection string. */
  db: string;
  outputDir: string;
  write(name: string, yaml: string): string;
  /** `gwrun` against the scope's store (and simulator), in this process where it can be. */
  gwrun(args: readonly string[]): { done: Promise<CliResult> };
  /** The same, spawned: for a test of what happens to the process (a signal, a kill). */
  spawn(args: readonly string[]): ReturnType<typeof gwrunAsync>;
  /** Opens the store the runs record into, its paths as gwrun gives them (the caller closes it). */
  open(): Promise<Store>;
  /** The latest run's tasks, each with its outputs, as the store has them now. */
  tasks(): Promise<(TaskRow & { outputs: OutputRow[] })[]>;
}

/** Gateway seconds per real second in end-to-end runs: a 45 s image takes 12 ms. */
export const FAST = 3600;

/** `pgUrl`: a PostgreSQL store to run against instead of a SQLite file. */
export async function withRun<T>(
  options: SimOptionsInput,
  fn: (scope: RunScope) => Promise<T>,
  pgUrl?: string,
): Promise<T> {
  const sim = await startSimulator({ timeScale: FAST, mediaVariants: 4, ...options });
  const dir = tempDir();
  const db = pgUrl ?? path.join(dir, "gwrun.db");
  // A PostgreSQL store is named as a user names one with a password in it: in the environment.
  const storeFlag = pgUrl === undefined ? ["--db", db] : [];
  const env = { GW_API_KEY: "test-key", ...(pgUrl === undefined ? {} : { GWRUN_STORE: pgUrl }) };
  const outputDir = path.join(dir, "out");
  // Commands that talk to the gateway get the simulator's URL; all get the database.
  const withStore = (args: readonly string[]) => {
    const talks = !["status", "runs", "report", "export", "view", "prune", "plan", "cost"].includes(
      args[0] ?? "",
    );
    return [...args, ...(talks ? [...storeFlag, "--base-url", sim.url] : storeFlag)];
  };
  const children: ChildProcess[] = [];
  const scope: RunScope = {
    sim,
    dir,
    db,
    outputDir,
    write(name, yaml) {
      const file = path.join(dir, name);
      writeFileSync(file, yaml);
      return file;
    },
    gwrun: (args) => ({ done: gwrunHere(withStore(args), { cwd: dir, env }) }),
    spawn: (args) => {
      const run = gwrunAsync(withStore(args), { cwd: dir, env });
      children.push(run.child);
      return run;
    },
    open: async () =>
      inProject(pgUrl === undefined ? openStore(db) : await openPgStore(pgUrl), dir),
    async tasks() {
      const store = await scope.open();
      try {
        const run = await store.latestRun();
        if (run === undefined) return [];
        const tasks = [];
        for (const task of await store.tasksOf(run.id))
          tasks.push({ ...task, outputs: await store.outputsOf(task.key) });
        return tasks;
      } finally {
        await store.close();
      }
    },
  };
  try {
    return await fn(scope);
  } finally {
    // A failed assertion must not leave a gwrun running against a closed simulator.
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    await sim.close();
  }
}

/** Every file below `dir`, relative to it. */
export function filesBelow(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

/** Settings for quick end-to-end manifests: fast polling and retries, the output folder given. */
export function fastSettings(outputDir: string, extra = ""): string {
  return `version: 1
limits: { submit_rate: 500/s, max_in_flight: 200, max_in_flight_video: 50, downloads: 8 }
poll: { first_after: 20ms, every: 20ms, batch_size: 50 }
retry: { attempts: 6, min_delay: 5ms, max_delay: 50ms }
output: { dir: ${JSON.stringify(outputDir)} }
${extra}`;
}

/**
 * A manifest of `tasks` small pictures (rows of 100), no thumbnails, in the scope's folder as
 * `<name>.yaml`; `settings` changes the quick settings (a faster submit rate, say).
 */
export function mugsGrid(
  scope: RunScope,
  name: string,
  tasks: number,
  settings: (text: string) => string = (text) => text,
): string {
  const rows = Array.from({ length: tasks / 100 }, (_, i) => i + 1).join(", ");
  const columns = Array.from({ length: 100 }, (_, i) => i + 1).join(", ");
  const quick = fastSettings(scope.outputDir).replace(
    "output: { dir: ",
    "output: { thumbnails: false, dir: ",
  );
  return scope.write(
    `${name}.yaml`,
    `${settings(quick)}name: ${name}
jobs:
  - id: mugs
    model: acme-image-2
    matrix: { row: [${rows}], column: [${columns}] }
    prompt: "A ceramic mug, row {{row}}, column {{column}}"
    size: "64x64"
`,
  );
}
