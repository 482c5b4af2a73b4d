// Pieces of the fleet benches (bench/fleet.mjs): a store per scenario, `gwrun worker`
// processes, detached runs, and what the store and the simulator tell afterwards.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { freshDatabase } from "./postgres.mjs";
import { BENCH_API_KEY, bin, manifest } from "./run-helpers.mjs";

export const HOST = hostname();
const ENV = { ...process.env, GW_API_KEY: BENCH_API_KEY };

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The environment of a gwrun working `storeUrl`: a password stays off the command line. */
const storeEnv = (storeUrl) => ({ ...ENV, GWRUN_STORE: storeUrl });

/** Runs a gwrun command on the store `storeUrl` to its end: { code, stdout, stderr }. */
export function gwrun(args, storeUrl) {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: storeEnv(storeUrl),
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    child.once("close", (code, signal) =>
      resolve({ code, signal, stdout, stderr, pid: child.pid }),
    );
  });
}

/** A fresh database on the server, migrated by `gwrun store migrate`. */
export async function freshStore(serverUrl) {
  const url = await freshDatabase(serverUrl);
  const migrated = await gwrun(["store", "migrate"], url);
  if (migrated.code !== 0) throw new Error(`gwrun store migrate failed: ${migrated.stderr}`);
  const db = new pg.Pool({ connectionString: url, max: 4, application_name: "gwrun-bench" });
  db.on("error", () => {});
  return { url, db };
}

/** Peak RSS (VmHWM) of a live process in MB, or undefined once it is gone. */
export function peakRssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return undefined;
  }
}

const nodeArgs = () => (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);

/** Whether workers can be given host names of their own (`startWorker`'s `host`). */
export const OWN_HOSTS = process.getuid?.() === 0 && existsSync("/usr/bin/unshare");

/** A `gwrun worker` process. */
export function startWorker(storeUrl, name, extra = [], { host } = {}) {
  // BENCH_WORKER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof", profiles workers.
  const args = [...nodeArgs(), bin, "worker", "--name", name, ...extra];
  const env = storeEnv(storeUrl);
  // `host`: the worker runs under a host name of its own (a UTS namespace, as root), so the
  // fleet can tell its death only by its lease, as for a host that went dark.
  const child =
    host === undefined
      ? spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env })
      : spawn(
          "unshare",
          ["--uts", "sh", "-c", `hostname ${host} && exec "$0" "$@"`, process.execPath, ...args],
          { stdio: ["ignore", "pipe", "pipe"], env },
        );
  const worker = {
    name,
    child,
    pid: child.pid,
    id: `${child.pid}@${host ?? HOST}`,
    stderr: "",
    stdout: "",
    peakMb: 0,
    exit: undefined,
  };
  child.stdout.on("data", (chunk) => {
    worker.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    worker.stderr += chunk;
  });
  const sampler = setInterval(() => {
    worker.peakMb = Math.max(worker.peakMb, peakRssMb(child.pid) ?? 0);
  }, 100);
  worker.closed = new Promise((resolve) => {
    child.once("close", (code, signal) => {
      clearInterval(sampler);
      worker.exit = { code, signal };
      resolve(worker.exit);
    });
  });
  /** SIGTERM, then the exit (SIGKILL after `graceMs`). */
  worker.stop = async (graceMs = 20_000) => {
    if (worker.exit !== undefined) return worker.exit;
    worker.peakMb = Math.max(worker.peakMb, peakRssMb(child.pid) ?? 0);
    child.kill("SIGTERM");
    const timer = setTimeout(() => {
      worker.killedAfterGrace = true;
      child.kill("SIGKILL");
    }, graceMs);
    const exit = await worker.closed;
    clearTimeout(timer);
    return exit;
  };
  worker.kill9 = () => {
    child.kill("SIGKILL");
    return worker.closed;
  };
  return worker;
}

/** Waits until the store's `workers` table lists every one of `workers` (they are up). */
export async function waitWorkersUp(db, workers, timeoutMs = 30_000) {
  const ids = workers.map((worker) => worker.id);
  const started = performance.now();
  for (;;) {
    const { rows } = await db.query("SELECT id FROM workers WHERE id = ANY($1::text[])", [ids]);
    if (rows.length === ids.length) return performance.now() - started;
    if (performance.now() - started > timeoutMs)
      throw new Error(
        `workers not up after ${timeoutMs} ms: ${workers.map((w) => w.stderr).join("\n")}`,
      );
    await sleep(50);
  }
}

/** `gwrun run --detach`: the run id. */
export async function recordRun(file, storeUrl, simUrl) {
  const result = await gwrun(["run", file, "--base-url", simUrl, "--detach"], storeUrl);
  const id = /run (\d+) recorded/.exec(result.stdout + result.stderr)?.[1];
  if (result.code !== 0 || id === undefined)
    throw new Error(`gwrun run --detach: exit ${result.code}\n${result.stdout}${result.stderr}`);
  return Number(id);
}

/** Waits until the run is no longer running: { status, exit_code, ms } or { timedOut }. */
export async function waitSettled(db, runId, timeoutMs) {
  const started = performance.now();
  for (;;) {
    const { rows } = await db.query("SELECT status, exit_code FROM runs WHERE id = $1", [runId]);
    if (rows[0] !== undefined && rows[0].status !== "running")
      return { ...rows[0], ms: performance.now() - started };
    if (performance.now() - started > timeoutMs)
      return { status: rows[0]?.status, timedOut: true, ms: performance.now() - started };
    await sleep(50);
  }
}

export async function counters(simUrl) {
  return (await fetch(`${simUrl}/__sim/counters`)).json();
}

/** The states of a run's tasks. */
export async function statesOf(db, runId) {
  const { rows } = await db.query(
    "SELECT state, count(*)::int AS n FROM jobs WHERE run_id = $1 GROUP BY state",
    [runId],
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** Receipt times (jobs.submitted_at, ms) of a run, sorted. */
export async function receiptTimes(db, runId) {
  const { rows } = await db.query(
    "SELECT submitted_at FROM jobs WHERE run_id = $1 AND submitted_at IS NOT NULL ORDER BY 1",
    [runId],
  );
  return rows.map((row) => Number(row.submitted_at));
}

/** Receipts per second between the first and last 10 % of the span, and the max in any 1 s. */
export function paceFigures(times) {
  if (times.length < 2) return { steady_per_s: 0, max_in_1s: times.length };
  const first = times[0];
  const last = times.at(-1);
  const from = first + (last - first) * 0.1;
  const to = last - (last - first) * 0.1;
  const inside = times.filter((at) => at >= from && at <= to).length;
  let max = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= 1000) start++;
    max = Math.max(max, end - start + 1);
  }
  return { steady_per_s: inside / ((to - from) / 1000), max_in_1s: max };
}

export const round = (x, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

/** Times workers refused a run (its output marker not readable yet, or other reasons). */
export function runRefusals(workers) {
  return workers.reduce(
    (sum, worker) => sum + (worker.stderr.match(/cannot be worked here/g) ?? []).length,
    0,
  );
}

export const print = (figures) => console.log(JSON.stringify(figures));
export const log = (line) => process.stderr.write(`fleet bench: ${line}\n`);

/** A folder of its own for a case (a manifest's partial folder is next to its output). */
export function caseDir(root, name) {
  const folder = path.join(root, name);
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** A manifest from run-helpers' `manifest`, with other limits. */
export function manifestWith(folder, jobs, submitRate, { poll, maxInFlight, downloads } = {}) {
  const file = manifest(folder, jobs, submitRate, "", poll);
  let text = readFileSync(file, "utf8");
  if (maxInFlight !== undefined)
    text = text.replace("max_in_flight: 2000", `max_in_flight: ${maxInFlight}`);
  if (downloads !== undefined) text = text.replace("downloads: 32", `downloads: ${downloads}`);
  writeFileSync(file, text);
  return file;
}

/** One cached picture for every task, shared by the cases. */
export function mediaArgs(root) {
  return ["--media-variants", "1", "--cache-dir", path.join(root, "media")];
}

/** SIGTERM to each worker; how each exited. */
export async function stopAll(workers) {
  const exits = await Promise.all(workers.map((worker) => worker.stop()));
  return exits.map((exit, i) => ({
    name: workers[i].name,
    code: exit.code,
    signal: exit.signal,
    ...(workers[i].killedAfterGrace ? { sigkill_after_grace: true } : {}),
  }));
}

/** A case's end, however it went: its workers stopped, its simulator, its connections. */
export async function endCase(workers, sim, db) {
  await stopAll(workers);
  sim.stop();
  await db.end();
}

/** Each worker's share of a run's receipts (the store names the submitter of each task). */
export async function sharesOf(db, runId) {
  const { rows } = await db.query(
    `SELECT COALESCE(w.name, j.submitted_by) AS name, count(*)::int AS n
     FROM jobs j LEFT JOIN workers w ON w.id = j.submitted_by
     WHERE j.run_id = $1 AND j.submitted_by IS NOT NULL GROUP BY 1 ORDER BY 1`,
    [runId],
  );
  const total = rows.reduce((sum, row) => sum + row.n, 0);
  return Object.fromEntries(rows.map((row) => [row.name, round(row.n / total)]));
}

export async function firstReceipt(db, runId) {
  const { rows } = await db.query("SELECT min(submitted_at) AS at FROM jobs WHERE run_id = $1", [
    runId,
  ]);
  return rows[0]?.at === null ? undefined : Number(rows[0].at);
}

/** Files under `folder`, recursively (none when it is missing). */
export function filesUnder(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath ?? entry.path, entry.name));
}
