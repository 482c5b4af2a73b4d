// A finished run of 300,000 outputs (one in a hundred tasks failed) as a person looks at it:
// `gwrun view`'s grid, run page, timeline and failures, first and later pages, each timed from
// the request to the last byte (`view-grid-300k`); `gwrun status` and `gwrun report` through
// the CLI, and the state database's bytes per task before and after `gwrun prune --events`
// (`report-300k`); then the same on a PostgreSQL store (`view-grid-300k-pg`, `report-300k-pg`;
// GWRUN_TEST_PG_URL, else an embedded server).
// Usage: node bench/view-scale.mjs [outputs] [--stores sqlite,pg] (default: both stores)
import { spawnSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { systemClock } from "../dist/core/clock.js";
import { startViewServer } from "../dist/view/index.js";
import { benchFolder } from "./folder.mjs";
import { freshDatabase, startPostgres } from "./postgres.mjs";
import { finishedRunStore } from "./view-store.mjs";
import { finishedPgRunStore } from "./view-store-pg.mjs";

const args = process.argv.slice(2);
const storesAt = args.indexOf("--stores");
const STORES = storesAt === -1 ? ["sqlite", "pg"] : (args[storesAt + 1] ?? "sqlite").split(",");
const OUTPUTS = Number(args.find((arg, i) => /^\d+$/.test(arg) && i !== storesAt + 1) ?? 300_000);
const root = path.dirname(import.meta.dirname);

async function timed(url) {
  const start = performance.now();
  const response = await fetch(url);
  const body = await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return { ms: Math.round(performance.now() - start), kb: Math.round(body.byteLength / 1024) };
}

/** The slowest of three requests, ms. */
async function slowest(url) {
  const times = [];
  for (let i = 0; i < 3; i++) times.push((await timed(url)).ms);
  return Math.max(...times);
}

/** A `gwrun` command in the folder `dir`, on the store `at` names: its wall time, ms. */
function gwrun(dir, args, at) {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    [path.join(root, "bin/gwrun.js"), ...args, ...at.args],
    {
      cwd: dir,
      env: { ...process.env, ...at.env },
      encoding: "utf8",
      maxBuffer: 1024 ** 3,
    },
  );
  if (result.status !== 0) throw new Error(`gwrun ${args.join(" ")}: ${result.stderr}`);
  return Math.round(performance.now() - start);
}

/** The SQLite store's files in `dir`, bytes. */
const sqliteBytes = (dir) =>
  ["view.db", "view.db-wal"].reduce((sum, name) => {
    try {
      return sum + statSync(path.join(dir, name)).size;
    } catch {
      return sum;
    }
  }, 0);

/** The PostgreSQL database at `url`, bytes. */
async function pgBytes(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("SELECT pg_database_size(current_database()) AS n");
    return Number(rows[0].n);
  } finally {
    await client.end();
  }
}

/** The figures of one store: `opened` is its store and run, `at` how the CLI names it. */
async function measure(kind, dir, opened, at, bytes) {
  const { store, runId, setupMs } = opened;
  const viewer = await startViewServer({
    store,
    port: 0,
    token: "bench",
    clock: systemClock,
    project: dir,
  });
  const pages = {};
  try {
    const run = `${viewer.url}/runs/${runId}`;
    const api = `${viewer.url}/api/runs/${runId}`;
    const last = Math.ceil(OUTPUTS / 1000);
    pages.grid_page_cold_ms = (await timed(`${run}/outputs`)).ms;
    pages.grid_page_ms = await slowest(`${run}/outputs`);
    pages.grid_page_kb = (await timed(`${run}/outputs`)).kb;
    pages.grid_last_page_ms = await slowest(`${run}/outputs?page=${last}`);
    pages.run_page_ms = await slowest(run);
    pages.progress_ms = await slowest(`${api}/progress`);
    pages.timeline_page_ms = await slowest(`${api}/timeline`);
    pages.timeline_slowest_page_ms = await slowest(`${api}/timeline?order=slowest&page=3`);
    pages.failures_page_ms = await slowest(`${api}/failures?page=2`);
  } finally {
    await viewer.close();
    await store.close();
  }
  const statusMs = gwrun(dir, ["status", String(runId)], at);
  const reportMs = gwrun(dir, ["report", String(runId)], at);
  const bytesBefore = await bytes();
  const pruneMs = gwrun(dir, ["prune"], at);
  const bytesPruned = await bytes();
  const suffix = kind === "sqlite" ? "" : `-${kind}`;
  console.log(
    JSON.stringify({
      bench: `view-grid-300k${suffix}`,
      outputs: OUTPUTS,
      setup_ms: setupMs,
      ...pages,
      load_average: Math.round(loadavg()[0] * 10) / 10,
      under_1s: Object.entries(pages).every(([name, ms]) => !name.endsWith("_ms") || ms < 1000),
    }),
  );
  console.log(
    JSON.stringify({
      bench: `report-300k${suffix}`,
      outputs: OUTPUTS,
      status_ms: statusMs,
      report_ms: reportMs,
      // A run's record as written (six logged moves a task), and after `gwrun prune`.
      db_bytes_per_task: Math.round(bytesBefore / OUTPUTS),
      prune_ms: pruneMs,
      db_bytes_per_task_pruned: Math.round(bytesPruned / OUTPUTS),
      load_average: Math.round(loadavg()[0] * 10) / 10,
    }),
  );
}

/** Builds the run on `kind`'s store in `dir` and measures it. */
async function benchStore(kind, dir) {
  const setup = performance.now();
  if (kind === "sqlite") {
    const opened = await finishedRunStore(dir, OUTPUTS);
    const setupMs = Math.round(performance.now() - setup);
    const db = { args: ["--db", path.join(dir, "view.db")], env: {} };
    return measure(kind, dir, { ...opened, setupMs }, db, () => sqliteBytes(dir));
  }
  const server = await startPostgres();
  try {
    const url = await freshDatabase(server.url, "gwrun_view");
    const opened = await finishedPgRunStore(url, dir, OUTPUTS);
    const setupMs = Math.round(performance.now() - setup);
    // Named in the environment: a password on the command line is refused.
    const store = { args: [], env: { GWRUN_STORE: url } };
    return await measure(kind, dir, { ...opened, setupMs }, store, () => pgBytes(url));
  } finally {
    await server.stop();
  }
}

for (const kind of STORES) {
  const dir = benchFolder(`view-scale-${kind}`);
  try {
    await benchStore(kind, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
