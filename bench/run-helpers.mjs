// Shared by the run benchmarks: a `gwrun sim` process, a manifest of N small images.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

export const root = path.dirname(import.meta.dirname);
export const bin = path.join(root, "bin/gwrun.js");

/**
 * The API key the benchmarks' gwrun sends the simulator. gwrun refuses a credential's value in
 * a name, so it must not be a word of the benchmarks' folder names ("bench").
 */
export const BENCH_API_KEY = "sk-simulated-gateway-key";

export function startSim(args) {
  const child = spawn(process.execPath, [bin, "sim", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child.stdout.on("data", (chunk) => {
      text += chunk;
      const match = /^(http:\/\/\S+)\n/m.exec(text);
      if (match) resolve({ url: match[1], pid: child.pid, stop: () => child.kill("SIGINT") });
    });
    child.once("exit", (code) => reject(new Error(`gwrun sim exited with ${code}`)));
  });
}

/** Polls as soon as possible: for runs against a simulator without latency. */
export const INSTANT_POLL = "{ first_after: 10ms, every: 10ms, batch_size: 50 }";

/** A manifest of `jobs` small family A images; `poll` is the manifest's `poll:` in flow style. */
export function manifest(dir, jobs, submitRate, tag = "", poll = INSTANT_POLL) {
  const side = Math.ceil(Math.sqrt(jobs));
  const list = (n) => Array.from({ length: n }, (_, i) => i + 1).join(", ");
  const file = path.join(dir, `bench-${jobs}${tag}.yaml`);
  writeFileSync(
    file,
    `version: 1
name: bench-${jobs}
limits: { submit_rate: ${submitRate}, max_in_flight: 2000, downloads: 32 }
poll: ${poll}
retry: { attempts: 5, min_delay: 10ms, max_delay: 200ms }
output: { dir: ${JSON.stringify(path.join(dir, `out-${jobs}${tag}`))}, thumbnails: false }
jobs:
  - id: shots
    model: acme-image-2
    matrix: { row: [${list(side)}], column: [${list(Math.ceil(jobs / side))}] }
    prompt: "A ceramic mug, row {{row}}, column {{column}}"
    size: "64x64"
`,
  );
  return file;
}

// Zero latency: time runs a billion times faster, so records and links get lifetimes to match.
export const ZERO_LATENCY = [
  "--time-scale",
  "1000000000",
  // 1,000 real seconds at that scale (a fleet worker of 300,000 tasks downloads minutes after
  // the gateway made them), and far from the largest date JavaScript holds.
  "--retention",
  "1000000000000s",
  "--link-ttl",
  "1000000000000s",
];

/** A simulator with no latency and one cached picture, for runs that measure gwrun itself. */
export function startInstantSim(dir) {
  return startSim([
    ...ZERO_LATENCY,
    "--media-variants",
    "1",
    "--cache-dir",
    path.join(dir, "media"),
  ]);
}

/**
 * The gateway limits of the limit-counts-polls scenarios: 20/s counting every call, polls
 * too, kept to itself or announced; the manifest asks for it (a user who knows it) or twice
 * it (one who does not).
 */
export const COUNTS_POLLS = [
  { announced: false, ask: 1 },
  { announced: false, ask: 2 },
  { announced: true, ask: 2 },
];

/**
 * `gwrun run` of `file` against the gateway at `url` to its end, on the SQLite store beside
 * the manifest unless `env` names another (GWRUN_STORE); samples its peak RSS (VmHWM) and the
 * arrival of submit events.
 */
export function runGwrun(file, url, env = {}) {
  const started = performance.now();
  const store = env.GWRUN_STORE === undefined ? ["--db", `${file}.db`] : [];
  const child = spawn(process.execPath, [bin, "run", file, ...store, "--base-url", url, "--json"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, GW_API_KEY: BENCH_API_KEY, ...env },
  });
  let peakKb = 0;
  const sample = () => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      peakKb = Math.max(peakKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {}
  };
  const sampler = setInterval(sample, 20);
  const submits = [];
  let buffer = "";
  child.stdout.on("data", (chunk) => {
    // One pass over the chunk: slicing after every line would cost this process more than
    // gwrun spends writing them, on the same two cores.
    buffer += chunk;
    let start = 0;
    for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n", start)) {
      if (buffer.startsWith('{"v":2,"type":"task:submitted"', start))
        submits.push(performance.now());
      start = newline + 1;
    }
    buffer = buffer.slice(start);
  });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => {
    // "close", not "exit": every line of stdout has been read by then.
    child.once("close", (code) => {
      clearInterval(sampler);
      resolve({
        code,
        seconds: (performance.now() - started) / 1000,
        peakMb: Math.round(peakKb / 1024),
        submits,
        stderr,
      });
    });
    child.once("spawn", sample);
  });
}
