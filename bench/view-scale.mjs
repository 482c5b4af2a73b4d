// A finished run of 300,000 outputs (one in a hundred tasks failed) as a person looks at it:
// `gwrun view`'s grid, run page, timeline and failures, first and later pages, each timed from
// the request to the last byte (`view-grid-300k`); `gwrun status` and `gwrun report` through
// the CLI, and the state database's bytes per task before and after `gwrun prune --events`
// (`report-300k`).
// Usage: node bench/view-scale.mjs [outputs]
import { spawnSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { systemClock } from "../dist/core/clock.js";
import { startViewServer } from "../dist/view/index.js";
import { benchFolder } from "./folder.mjs";
import { finishedRunStore } from "./view-store.mjs";

const OUTPUTS = Number(process.argv[2] ?? 300_000);
const root = path.dirname(import.meta.dirname);
const dir = benchFolder("view-scale");

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

/** A `gwrun` command in the bench folder: its wall time, ms. */
function gwrun(args) {
  const start = performance.now();
  const result = spawnSync(process.execPath, [path.join(root, "bin/gwrun.js"), ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 1024 ** 3,
  });
  if (result.status !== 0) throw new Error(`gwrun ${args.join(" ")}: ${result.stderr}`);
  return Math.round(performance.now() - start);
}

const dbBytes = () =>
  ["view.db", "view.db-wal"].reduce((sum, name) => {
    try {
      return sum + statSync(path.join(dir, name)).size;
    } catch {
      return sum;
    }
  }, 0);

try {
  const setup = performance.now();
  const { store, runId } = await finishedRunStore(dir, OUTPUTS);
  const setupMs = Math.round(performance.now() - setup);
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
  const db = ["--db", path.join(dir, "view.db")];
  const statusMs = gwrun(["status", String(runId), ...db]);
  const reportMs = gwrun(["report", String(runId), ...db]);
  const bytesBefore = dbBytes();
  const pruneMs = gwrun(["prune", ...db]);
  const bytesPruned = dbBytes();
  console.log(
    JSON.stringify({
      bench: "view-grid-300k",
      outputs: OUTPUTS,
      setup_ms: setupMs,
      ...pages,
      load_average: Math.round(loadavg()[0] * 10) / 10,
      under_1s: Object.entries(pages).every(([name, ms]) => !name.endsWith("_ms") || ms < 1000),
    }),
  );
  console.log(
    JSON.stringify({
      bench: "report-300k",
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
} finally {
  rmSync(dir, { recursive: true, force: true });
}
