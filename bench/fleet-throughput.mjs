// Fleet throughput benches: the shared pace against a rate limit, scaling with workers, and a
// 10,000-task run. Each takes `bench` = { dir, serverUrl, trials } from bench/fleet.mjs.
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import {
  caseDir,
  counters,
  endCase,
  firstReceipt,
  freshStore,
  log,
  manifestWith,
  mediaArgs,
  paceFigures,
  peakRssMb,
  print,
  receiptTimes,
  recordRun,
  round,
  runRefusals,
  sharesOf,
  startWorker,
  statesOf,
  stopAll,
  waitSettled,
  waitWorkersUp,
} from "./fleet-harness.mjs";
import {
  countedStatements,
  cpuSeconds,
  serverCpuSeconds,
  singleProcess,
  startCountingStatements,
} from "./fleet-statements.mjs";
import { COUNTS_POLLS, startSim, ZERO_LATENCY } from "./run-helpers.mjs";

// 1. rate: 4 workers against a gateway limit of R/s (burst R).
export async function rate(bench) {
  // N = 600 at 20/s (not 1,200): 30 s per case keeps the scenario near 3 minutes.
  // The manifest asks for the gateway's limit; the fleet shares it, and keeps just under the
  // RateLimit-Policy the gateway announces.
  const cases = [
    {
      rate: 20,
      jobs: 600,
      submitRate: 20,
      latency: ["--latency", "image=2s"],
      poll: "{ first_after: 2s, every: 250ms, batch_size: 50 }",
    },
    { rate: 100, jobs: 3000, submitRate: 100, latency: ZERO_LATENCY },
  ];
  for (const [index, c] of cases.entries()) {
    const folder = caseDir(bench.dir, `rate-${index}`);
    const sim = await startSim([
      ...c.latency,
      ...mediaArgs(bench.dir),
      "--rate-limit",
      `${c.rate}/s`,
      "--burst",
      String(c.rate),
    ]);
    const { url, db } = await freshStore(bench.serverUrl);
    const workers = [1, 2, 3, 4].map((n) => startWorker(url, `w${n}`, ["--concurrency", "8"]));
    try {
      await waitWorkersUp(db, workers);
      const file = manifestWith(folder, c.jobs, `${c.submitRate}/s`, { poll: c.poll });
      const recordedAt = Date.now();
      const runId = await recordRun(file, url, sim.url);
      const settled = await waitSettled(db, runId, 180_000);
      const served = await counters(sim.url);
      const times = await receiptTimes(db, runId);
      const figures = paceFigures(times);
      const limited = served.errors["429"] ?? 0;
      const first = await firstReceipt(db, runId);
      print({
        bench: "fleet-rate",
        gateway_limit_per_s: c.rate,
        manifest_submit_rate: c.submitRate,
        image_latency: c.latency === ZERO_LATENCY ? "0" : "2s",
        workers: 4,
        tasks: times.length,
        run_status: settled.status,
        exit_code: settled.exit_code,
        states: await statesOf(db, runId),
        wall_s: round(settled.ms / 1000, 2),
        pickup_ms: first === undefined ? null : first - recordedAt,
        steady_submits_per_s: round(figures.steady_per_s, 2),
        fraction_of_limit: round(figures.steady_per_s / c.rate),
        target_fraction_of_limit: 0.98,
        // At the gateway: receipts are recorded a commit later, so their times bunch.
        max_submits_accepted_in_1s: served.submits.busiest_second,
        target_max_submits_in_1s: c.rate + 1,
        http_429: limited,
        http_429_per_submit: round(limited / (served.submits.received + limited), 4),
        target_http_429_per_submit: 0.005,
        worker_share_of_receipts: await sharesOf(db, runId),
        target_worker_share: 0.25,
        submits_repeated: served.submits.repeated,
        run_refusals_by_workers: runRefusals(workers),
        worker_exits: await stopAll(workers),
      });
    } finally {
      await endCase(workers, sim, db);
    }
  }
}

// 2b. limit-counts-polls: 3 workers against each of COUNTS_POLLS.
export async function limitCountsPolls(bench) {
  for (const { announced, ask } of COUNTS_POLLS) {
    const folder = caseDir(bench.dir, `limit-counts-polls-${announced}-${ask}`);
    const limit = 20;
    const sim = await startSim([
      "--latency",
      "image=2s",
      ...mediaArgs(bench.dir),
      "--rate-limit",
      `${limit}/s`,
      "--rate-limit-counts",
      "calls",
      ...(announced ? [] : ["--rate-limit-unannounced"]),
    ]);
    const { url, db } = await freshStore(bench.serverUrl);
    const workers = [1, 2, 3].map((n) => startWorker(url, `w${n}`, ["--concurrency", "8"]));
    try {
      await waitWorkersUp(db, workers);
      const file = manifestWith(folder, 600, `${ask * limit}/s`, {
        poll: "{ first_after: 2s, every: 1s, batch_size: 50 }",
      });
      const runId = await recordRun(file, url, sim.url);
      const settled = await waitSettled(db, runId, 180_000);
      const served = await counters(sim.url);
      const queries = served.queries.single + served.queries.batch;
      const calls = served.submits.received + queries;
      const limited = served.errors["429"] ?? 0;
      const figures = paceFigures(await receiptTimes(db, runId));
      print({
        bench: "fleet-limit-counts-polls",
        workers: 3,
        gateway_limit_per_s: limit,
        limit_announced: announced,
        manifest_submit_rate: ask * limit,
        run_status: settled.status,
        states: await statesOf(db, runId),
        wall_s: round(settled.ms / 1000, 2),
        calls,
        queries,
        http_429: limited,
        http_429_per_call: round(limited / calls, 4),
        target_http_429_per_call: 0.005,
        steady_submits_per_s: round(figures.steady_per_s, 2),
        // The bound every call under the limit allows: (submits + queries) / R + a task's 2 s.
        wall_vs_all_calls_bound: round(settled.ms / 1000 / (calls / limit + 2), 3),
        target_wall_vs_all_calls_bound: 1.1,
        worker_exits: await stopAll(workers),
      });
    } finally {
      await endCase(workers, sim, db);
    }
  }
}

// 4. scale: images that take 2 s and downloads that take 0.5 s, no rate limit; W = 1, 2, 4
// workers with 4 download slots each. A worker's slots bind, as a host's bandwidth would, so
// the fleet should do W times the work of one.
const SCALE = { jobs: 320, latency: "2s", downloadDelay: "500ms", downloads: 4 };

/** Tasks done per second between the first and last 10 % of the done times. */
async function steadyDonePerSecond(db, runId) {
  const { rows } = await db.query(
    "SELECT done_at FROM jobs WHERE run_id = $1 AND done_at IS NOT NULL ORDER BY 1",
    [runId],
  );
  return paceFigures(rows.map((row) => Number(row.done_at))).steady_per_s;
}

export async function scale(bench) {
  const perW = {};
  for (const count of [1, 2, 4]) {
    const folder = caseDir(bench.dir, `scale-${count}`);
    const sim = await startSim([
      "--latency",
      `image=${SCALE.latency}`,
      "--download-delay",
      SCALE.downloadDelay,
      ...mediaArgs(bench.dir),
    ]);
    const { url, db } = await freshStore(bench.serverUrl);
    const workers = Array.from({ length: count }, (_, i) =>
      startWorker(url, `w${i + 1}`, ["--concurrency", "8", "--downloads", String(SCALE.downloads)]),
    );
    try {
      await waitWorkersUp(db, workers);
      const file = manifestWith(folder, SCALE.jobs, "1000/s", {
        poll: "{ first_after: 2s, every: 250ms, batch_size: 50 }",
      });
      const started = performance.now();
      const runId = await recordRun(file, url, sim.url);
      const settled = await waitSettled(db, runId, 240_000);
      const seconds = (performance.now() - started) / 1000;
      const served = await counters(sim.url);
      const tasks = Object.values(await statesOf(db, runId)).reduce((a, b) => a + b, 0);
      perW[count] = {
        tasks,
        run_status: settled.status,
        wall_s: round(seconds, 2),
        jobs_per_s: round(await steadyDonePerSecond(db, runId), 2),
        end_to_end_jobs_per_s: round(tasks / seconds, 2),
        http_requests_per_task: round(served.requests / tasks),
        shares: await sharesOf(db, runId),
      };
    } finally {
      await endCase(workers, sim, db);
    }
  }
  print({
    bench: "fleet-scale",
    image_latency: SCALE.latency,
    download_delay: SCALE.downloadDelay,
    downloads_per_worker: SCALE.downloads,
    by_workers: perW,
    w2_over_w1: round(perW[2].jobs_per_s / perW[1].jobs_per_s),
    target_w2_over_w1: 1.8,
    w4_over_w1: round(perW[4].jobs_per_s / perW[1].jobs_per_s),
    target_w4_over_w1: 3.2,
    target_http_requests_per_task: 2.1,
  });
}

// 5. pg-10k: 10,000 tasks, zero latency, two workers (the run detached), between two runs of
// the same manifest by one `gwrun run` process on SQLite: the fleet's share of what one
// process does in the same minutes, and the statements per task it costs PostgreSQL.
/** Download slots per worker in pg-10k: half of the manifest's `downloads: 32`. */
const PG_10K_DOWNLOADS = 16;

export async function pg10k(bench) {
  const tasks = 10_000;
  const loadAtStart = loadavg().map((load) => round(load, 2));
  const before = await singleProcess(bench, "pg-10k-single-before", tasks);
  const folder = caseDir(bench.dir, "pg-10k");
  const sim = await startSim([...ZERO_LATENCY, ...mediaArgs(bench.dir)]);
  const { url, db } = await freshStore(bench.serverUrl);
  // What the one process has, split between the two: 16 submits at once (the engine's), and
  // the manifest's 32 download slots. A slot holds a file until the store has recorded it, so
  // the slots also bound how many files one statement records.
  const workers = [1, 2].map((n) =>
    startWorker(url, `w${n}`, ["--concurrency", "8", "--downloads", String(PG_10K_DOWNLOADS)]),
  );
  let fleet;
  try {
    await waitWorkersUp(db, workers);
    const counting = await startCountingStatements(db);
    const pids = workers.map((worker) => worker.pid);
    const cpuBefore = {
      workers: cpuSeconds(pids),
      postgres: await serverCpuSeconds(db),
      simulator: cpuSeconds([sim.pid]),
    };
    const file = manifestWith(folder, tasks, "5000/s");
    const started = performance.now();
    const recordedAt = Date.now();
    const runId = await recordRun(file, url, sim.url);
    const recordS = (performance.now() - started) / 1000;
    // BENCH_TRACE_STATES=1: the run's tasks by state every second, on stderr (which stage lags).
    const tracing =
      process.env.BENCH_TRACE_STATES === "1"
        ? setInterval(() => {
            statesOf(db, runId).then(
              (states) => log(`states ${JSON.stringify(states)}`),
              () => {},
            );
          }, 1000)
        : undefined;
    const settled = await waitSettled(db, runId, 170_000);
    clearInterval(tracing);
    const seconds = (performance.now() - started) / 1000;
    const statements = counting ? await countedStatements(db) : undefined;
    const postgresCpu = await serverCpuSeconds(db);
    // Where the time went: CPU seconds of each part, against the machine's cores × the wall.
    const cpu = {
      workers: round(cpuSeconds(pids) - cpuBefore.workers, 1),
      postgres:
        postgresCpu === undefined || cpuBefore.postgres === undefined
          ? null
          : round(postgresCpu - cpuBefore.postgres, 1),
      simulator: round(cpuSeconds([sim.pid]) - cpuBefore.simulator, 1),
      cores_times_wall: round(cpus().length * seconds, 1),
    };
    const served = await counters(sim.url);
    const states = await statesOf(db, runId);
    const done = Object.values(states).reduce((a, b) => a + b, 0);
    const first = await firstReceipt(db, runId);
    const peaks = Object.fromEntries(
      workers.map((worker) => [worker.name, Math.max(worker.peakMb, peakRssMb(worker.pid) ?? 0)]),
    );
    if (statements !== undefined)
      log(`pg-10k busiest statements: ${JSON.stringify(statements.busiest)}`);
    fleet = {
      workers: 2,
      downloads_per_worker: PG_10K_DOWNLOADS,
      tasks: done,
      run_status: settled.status,
      exit_code: settled.exit_code ?? null,
      states,
      record_s: round(recordS, 2),
      pickup_ms: first === undefined ? null : first - recordedAt,
      wall_s: round(seconds, 2),
      jobs_per_s: Math.round(done / seconds),
      statements_per_task: statements === undefined ? null : round(statements.total / done, 2),
      cpu_s: cpu,
      http_requests_per_task: round(served.requests / done),
      peak_rss_mb: peaks,
      target_peak_rss_mb: 250,
      submits_repeated: served.submits.repeated,
      run_refusals_by_workers: runRefusals(workers),
      worker_exits: await stopAll(workers),
    };
  } finally {
    await endCase(workers, sim, db);
  }
  const after = await singleProcess(bench, "pg-10k-single-after", tasks);
  const single = Math.round((before.jobs_per_s + after.jobs_per_s) / 2);
  print({
    bench: "fleet-pg-10k",
    ...fleet,
    single_process_jobs_per_s: single,
    single_process_runs: { before, after },
    fleet_over_single: round(fleet.jobs_per_s / single),
    target_fleet_over_single: 0.5,
    load_average_at_start: loadAtStart,
    load_average: loadavg().map((load) => round(load, 2)),
  });
}
