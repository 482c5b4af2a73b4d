// Runs of growing size, the same manifest shape (small family A images, thumbnails off, files
// where bench/folder.mjs puts them) against `gwrun sim` with no latency, one process each:
// - run-scale-sqlite: `gwrun run` on a SQLite store (the engine);
// - run-scale-pg: `gwrun run` on a PostgreSQL store, which works its run as the fleet's one
//   worker (the simulator is another process, as a real gateway would be);
// - run-scale-pg-worker: a `gwrun worker` working a run `gwrun run --detach` recorded.
// One JSON line per store and size: jobs per second, the working process's peak RSS and the
// state database's bytes per task, with the ratios to the smallest size next to their targets.
// Usage: node bench/run-scale.mjs [--sizes 10000,30000] [--stores sqlite,pg,pg-worker]
// (default 10,000 / 100,000 / 300,000 tasks, every store). PostgreSQL: GWRUN_TEST_PG_URL,
// else an embedded server. Runs `dist/`: build first.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import {
  freshStore,
  peakRssMb,
  recordRun,
  startWorker,
  statesOf,
  stopAll,
  waitSettled,
  waitWorkersUp,
} from "./fleet-harness.mjs";
import { benchFolder } from "./folder.mjs";
import { startPostgres } from "./postgres.mjs";
import { manifest, runGwrun, startInstantSim } from "./run-helpers.mjs";

const STORES = ["sqlite", "pg", "pg-worker"];
const options = { sizes: [10_000, 100_000, 300_000], stores: STORES };
const args = process.argv.slice(2);
let bad;
for (let i = 0; i < args.length; i += 2) {
  const list = args[i + 1]?.split(",") ?? [];
  if (args[i] === "--sizes") options.sizes = list.map(Number);
  else if (args[i] === "--stores") options.stores = list;
  else bad ??= args[i];
}
bad ??=
  options.sizes.find((n) => !(Number.isInteger(n / 100) && n > 0)) ??
  options.stores.find((store) => !STORES.includes(store));
if (bad !== undefined) {
  console.error(
    `bad argument ${bad}; usage: node bench/run-scale.mjs [--sizes 10000,30000] [--stores ${STORES.join(",")}]; sizes in hundreds`,
  );
  process.exit(2);
}

/**
 * run-helpers' manifest of exactly `tasks` pictures (a whole number of hundreds): a matrix of
 * tasks/100 rows by 100 columns, `max_tasks` raised to match.
 */
function scaleManifest(folder, tasks) {
  const file = manifest(folder, tasks, "5000/s");
  const list = (n) => Array.from({ length: n }, (_, i) => i + 1).join(", ");
  const text = readFileSync(file, "utf8")
    .replace(/matrix: .*/, `matrix: { row: [${list(tasks / 100)}], column: [${list(100)}] }`)
    .replace("limits: { ", `limits: { max_tasks: ${tasks}, `);
  writeFileSync(file, text);
  return file;
}

const round = (x, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const fileBytes = (file) => (existsSync(file) ? statSync(file).size : 0);

/**
 * The measure of one run: { tasks, seconds, peakMb, dbBytes, exit } and the tasks seen
 * submitted (`sent`, from the run's events) or done (`done`, from the store).
 */
const MEASURE = {
  async sqlite(folder, tasks, sim) {
    const file = scaleManifest(folder, tasks);
    const run = await runGwrun(file, sim.url);
    if (run.code !== 0) process.stderr.write(run.stderr);
    const db = `${file}.db`;
    const dbBytes = fileBytes(db) + fileBytes(`${db}-wal`);
    const sent = run.submits.length;
    return { tasks, sent, seconds: run.seconds, peakMb: run.peakMb, dbBytes, exit: run.code };
  },
  async pg(folder, tasks, sim, serverUrl) {
    const { url, db } = await freshStore(serverUrl);
    try {
      const empty = await databaseBytes(db);
      const run = await runGwrun(scaleManifest(folder, tasks), sim.url, { GWRUN_STORE: url });
      if (run.code !== 0) process.stderr.write(run.stderr);
      const dbBytes = (await databaseBytes(db)) - empty;
      // From the store: the run's events come from the store's log, a receipt and a
      // completion in one round told as one.
      const { rows } = await db.query("SELECT count(*)::int AS n FROM jobs WHERE state = 'done'");
      const done = rows[0].n;
      return { tasks, done, seconds: run.seconds, peakMb: run.peakMb, dbBytes, exit: run.code };
    } finally {
      await db.end();
    }
  },
  async "pg-worker"(folder, tasks, sim, serverUrl) {
    const { url, db } = await freshStore(serverUrl);
    const worker = startWorker(url, "w1", ["--concurrency", "8"]);
    try {
      await waitWorkersUp(db, [worker]);
      const empty = await databaseBytes(db);
      const started = performance.now();
      const runId = await recordRun(scaleManifest(folder, tasks), url, sim.url);
      // At least 10 jobs a second (a busy machine), or the run is reported as not settled.
      const settled = await waitSettled(db, runId, Math.max(300_000, tasks * 100));
      const seconds = (performance.now() - started) / 1000;
      const done = (await statesOf(db, runId)).done ?? 0;
      if (done !== tasks) process.stderr.write(`${worker.stderr}\n`);
      const peakMb = Math.max(worker.peakMb, peakRssMb(worker.pid) ?? 0);
      const dbBytes = (await databaseBytes(db)) - empty;
      return { tasks, done, seconds, peakMb, dbBytes, exit: settled.exit_code ?? null };
    } finally {
      await stopAll([worker]);
      await db.end();
    }
  },
};

async function databaseBytes(db) {
  const { rows } = await db.query("SELECT pg_database_size(current_database())::bigint AS n");
  return Number(rows[0].n);
}

const dir = benchFolder("run-scale");
const server = options.stores.some((store) => store !== "sqlite") ? await startPostgres() : null;
let failed = false;
try {
  for (const store of options.stores) {
    let smallest;
    for (const size of options.sizes) {
      const folder = path.join(dir, `${store}-${size}`);
      mkdirSync(folder, { recursive: true });
      const sim = await startInstantSim(folder);
      let measured;
      try {
        measured = await MEASURE[store](folder, size, sim, server?.url);
      } finally {
        sim.stop();
      }
      const figures = {
        jobs_per_s: Math.round(measured.tasks / measured.seconds),
        peak_rss_mb: measured.peakMb,
        db_bytes_per_task: Math.round(measured.dbBytes / size),
      };
      smallest ??= figures;
      const count = measured.sent ?? measured.done;
      if (measured.exit !== 0 || count !== size) failed = true;
      console.log(
        JSON.stringify({
          bench: `run-scale-${store}`,
          tasks: size,
          ...(measured.sent === undefined ? { done: measured.done } : { submitted: measured.sent }),
          exit_code: measured.exit,
          wall_s: round(measured.seconds),
          ...figures,
          peak_rss_vs_smallest: round(figures.peak_rss_mb / smallest.peak_rss_mb),
          target_peak_rss_vs_smallest: 1.5,
          jobs_per_s_vs_smallest: round(figures.jobs_per_s / smallest.jobs_per_s),
          target_jobs_per_s_vs_smallest: 0.9,
        }),
      );
      rmSync(folder, { recursive: true, force: true });
    }
  }
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
