// End-to-end runs of `gwrun run` against `gwrun sim`, each in a process of its own:
// - 10,000 image jobs, zero latency, no rate limit: jobs per second, HTTP requests per task
//   (download included) and gwrun's peak RSS;
// - a gateway rate limit R below the manifest's submit rate: the submit rate achieved as a
//   fraction of R, and how many 429s gwrun received;
// - N images that take L seconds at the gateway, submitted at R per second with the poll
//   settings a user would keep: HTTP requests per task, and the wall time against the ideal
//   N/R + L (the last submit at N/R, done L later);
// - a gateway limit that counts every call, polls too (COUNTS_POLLS: announced or kept to
//   itself, the manifest asking for it or twice it): 429s as a share of the calls.
import { rmSync } from "node:fs";
import path from "node:path";
import { BENCH_BASE, benchFolder } from "./folder.mjs";
import {
  COUNTS_POLLS,
  manifest,
  runGwrun,
  startInstantSim,
  startSim,
  ZERO_LATENCY,
} from "./run-helpers.mjs";

async function counters(url) {
  return (await fetch(`${url}/__sim/counters`)).json();
}

/** The requests a run of media tasks costs the gateway: submits, queries and downloads. */
function httpRequests(served) {
  return (
    served.submits.received + served.queries.single + served.queries.batch + served.downloads.served
  );
}

const dir = benchFolder("run");
try {
  {
    const jobs = 10_000;
    const sim = await startInstantSim(dir);
    const result = await runGwrun(manifest(dir, jobs, "5000/s"), sim.url);
    const served = await counters(sim.url);
    sim.stop();
    if (result.code !== 0) process.stderr.write(result.stderr);
    const requests = httpRequests(served);
    console.log(
      JSON.stringify({
        bench: "run-10k-images",
        jobs,
        exit_code: result.code,
        wall_s: Math.round(result.seconds * 100) / 100,
        jobs_per_s: Math.round(jobs / result.seconds),
        target_jobs_per_s: 1000,
        http_requests_per_task: Math.round((requests / jobs) * 1000) / 1000,
        target_http_requests_per_task: 2.2,
        peak_rss_mb: result.peakMb,
        target_peak_rss_mb: 250,
        files_in: BENCH_BASE,
      }),
    );
  }
  {
    const jobs = 600;
    const limit = 50;
    const sim = await startSim([
      ...ZERO_LATENCY,
      "--media-variants",
      "1",
      "--rate-limit",
      `${limit}/s`,
      "--cache-dir",
      path.join(dir, "media"),
    ]);
    const result = await runGwrun(manifest(dir, jobs, "100/s"), sim.url);
    const served = await counters(sim.url);
    sim.stop();
    if (result.code !== 0) process.stderr.write(result.stderr);
    const first = result.submits[0] ?? 0;
    const last = result.submits.at(-1) ?? 0;
    const achieved = (result.submits.length - 1) / ((last - first) / 1000);
    console.log(
      JSON.stringify({
        bench: "run-rate-limited",
        jobs,
        exit_code: result.code,
        gateway_limit_per_s: limit,
        manifest_submit_rate_per_s: 100,
        achieved_submits_per_s: Math.round(achieved * 100) / 100,
        fraction_of_limit: Math.round((achieved / limit) * 1000) / 1000,
        target_fraction_of_limit: 0.98,
        http_429_received: served.errors["429"] ?? 0,
        target_http_429_after_the_first: 0,
      }),
    );
  }
  {
    // Real time (time scale 1): gwrun's own costs (start-up, its 50 ms loop tick, the last
    // download) weigh in the wall time as they would against the real gateway; a time scale
    // would shrink L and N/R and leave them as they are. About 35 s.
    const jobs = 400;
    const rate = 20;
    const latency = 15;
    const poll = { first_after: "15s", every: "4s", batch_size: 50 }; // gwrun's defaults
    const sim = await startSim([
      "--latency",
      `image=${latency}s`,
      "--media-variants",
      "1",
      "--cache-dir",
      path.join(dir, "media"),
    ]);
    const file = manifest(
      dir,
      jobs,
      `${rate}/s`,
      "-latency",
      `{ first_after: ${poll.first_after}, every: ${poll.every}, batch_size: ${poll.batch_size} }`,
    );
    const result = await runGwrun(file, sim.url);
    const served = await counters(sim.url);
    sim.stop();
    if (result.code !== 0) process.stderr.write(result.stderr);
    const ideal = jobs / rate + latency;
    console.log(
      JSON.stringify({
        bench: "run-with-latency",
        jobs,
        exit_code: result.code,
        submit_rate_per_s: rate,
        gateway_latency_s: latency,
        poll,
        http_requests_per_task_with_latency:
          Math.round((httpRequests(served) / jobs) * 1000) / 1000,
        target_http_requests_per_task_with_latency: 2.1,
        batch_queries: served.queries.batch,
        tasks_per_batch_query:
          Math.round((served.queries.batch_tasks / Math.max(1, served.queries.batch)) * 100) / 100,
        single_queries: served.queries.single,
        wall_s: Math.round(result.seconds * 100) / 100,
        n_over_r_plus_l_s: ideal,
        wall_ratio: Math.round((result.seconds / ideal) * 1000) / 1000,
        target_wall_ratio: 1.05,
      }),
    );
  }
  for (const { announced, ask } of COUNTS_POLLS) {
    // Real time, 2 s tasks polled every second: polls are a tenth of the calls. About 35 s.
    const jobs = 600;
    const limit = 20;
    const sim = await startSim([
      "--latency",
      "image=2s",
      "--media-variants",
      "1",
      "--cache-dir",
      path.join(dir, "media"),
      "--rate-limit",
      `${limit}/s`,
      "--rate-limit-counts",
      "calls",
      ...(announced ? [] : ["--rate-limit-unannounced"]),
    ]);
    const poll = "{ first_after: 2s, every: 1s, batch_size: 50 }";
    const file = manifest(dir, jobs, `${ask * limit}/s`, `-counts-${announced}-${ask}`, poll);
    const result = await runGwrun(file, sim.url);
    const served = await counters(sim.url);
    sim.stop();
    if (result.code !== 0) process.stderr.write(result.stderr);
    const queries = served.queries.single + served.queries.batch;
    const calls = served.submits.received + queries;
    const limited = served.errors["429"] ?? 0;
    const first = result.submits[0] ?? 0;
    const last = result.submits.at(-1) ?? 0;
    const achieved = (result.submits.length - 1) / ((last - first) / 1000);
    console.log(
      JSON.stringify({
        bench: "run-limit-counts-polls",
        jobs,
        exit_code: result.code,
        gateway_limit_per_s: limit,
        limit_announced: announced,
        manifest_submit_rate_per_s: ask * limit,
        calls,
        queries,
        http_429: limited,
        http_429_per_call: Math.round((limited / calls) * 10000) / 10000,
        target_http_429_per_call: 0.005,
        achieved_submits_per_s: Math.round(achieved * 100) / 100,
        calls_per_s_of_limit: Math.round(((calls / (last - first)) * 1000 * 1000) / limit) / 1000,
      }),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
