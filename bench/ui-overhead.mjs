// The cost of the dashboard: the 10,000-job run of run-throughput.mjs, in a pseudo-terminal
// (util-linux `script`, 120×40) with the Ink dashboard drawing on it, against the same run
// with no UI (`--quiet`: nothing but the summary). Rounds alternate; each side's best counts.
// Wall time is the target; gwrun's CPU time (bash's `time`) is steadier on a busy machine.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { benchFolder } from "./folder.mjs";
import { BENCH_API_KEY, bin, manifest, startInstantSim } from "./run-helpers.mjs";

const JOBS = 10_000;
const ROUNDS = 3;

const quote = (text) => `'${text.replaceAll("'", "'\\''")}'`;

/** Wall seconds of one run under a pseudo-terminal; its screen output is read and dropped. */
function runInTerminal(file, url, quiet) {
  const gwrun = [process.execPath, bin, "run", file, "--db", `${file}.db`, "--base-url", url];
  if (quiet) gwrun.push("--quiet");
  const command = `stty cols 120 rows 40; TIMEFORMAT="gwrun-cpu %U %S"; time ${gwrun.map(quote).join(" ")}`;
  const env = { ...process.env, GW_API_KEY: BENCH_API_KEY, TERM: "xterm-256color", SHELL: "bash" };
  delete env.CI;
  const started = performance.now();
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    stdio: ["ignore", "pipe", "inherit"],
    env,
  });
  let bytes = 0;
  let tail = "";
  child.stdout.on("data", (chunk) => {
    bytes += chunk.length;
    tail = (tail + chunk).slice(-2000);
  });
  return new Promise((resolve) => {
    child.once("close", (code) => {
      const cpu = /gwrun-cpu ([\d.]+) ([\d.]+)/.exec(tail);
      resolve({
        code,
        seconds: (performance.now() - started) / 1000,
        cpuSeconds: cpu === null ? Number.NaN : Number(cpu[1]) + Number(cpu[2]),
        bytes,
        tail,
      });
    });
  });
}

const dir = benchFolder("ui");
try {
  const sim = await startInstantSim(dir);
  const best = { none: Infinity, dashboard: Infinity };
  const cpu = { none: Infinity, dashboard: Infinity };
  const screenBytes = [];
  let failed = false;
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ["none", "dashboard"]) {
      const file = manifest(dir, JOBS, "5000/s", `-${mode}-${round}`);
      const result = await runInTerminal(file, sim.url, mode === "none");
      // Exit 0: every task of the run is done (1 when some failed).
      if (result.code !== 0) {
        failed = true;
        process.stderr.write(`${mode}: exit ${result.code}\n${result.tail}\n`);
      }
      if (mode === "dashboard") screenBytes.push(result.bytes);
      best[mode] = Math.min(best[mode], result.seconds);
      cpu[mode] = Math.min(cpu[mode], result.cpuSeconds);
    }
  }
  sim.stop();
  console.log(
    JSON.stringify({
      bench: "run-10k-dashboard-vs-no-ui",
      jobs: JOBS,
      rounds: ROUNDS,
      ok: !failed,
      no_ui_wall_s: Math.round(best.none * 100) / 100,
      dashboard_wall_s: Math.round(best.dashboard * 100) / 100,
      wall_ratio: Math.round((best.dashboard / best.none) * 1000) / 1000,
      target_wall_ratio: 1.1,
      no_ui_cpu_s: Math.round(cpu.none * 100) / 100,
      dashboard_cpu_s: Math.round(cpu.dashboard * 100) / 100,
      cpu_ratio: Math.round((cpu.dashboard / cpu.none) * 1000) / 1000,
      dashboard_screen_kb: Math.round(Math.max(...screenBytes) / 1024),
    }),
  );
  process.exitCode = failed ? 1 : 0;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
