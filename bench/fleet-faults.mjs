// Fleet fault benches: kill -9 of random workers, and of the poll leader. Each takes
// `bench` = { dir, serverUrl, trials } from bench/fleet.mjs.
import { existsSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { canonicalJson, sha256 } from "../dist/core/hash.js";
import {
  caseDir,
  counters,
  endCase,
  filesUnder,
  freshStore,
  log,
  manifestWith,
  mediaArgs,
  OWN_HOSTS,
  print,
  recordRun,
  round,
  runRefusals,
  sleep,
  startWorker,
  statesOf,
  stopAll,
  waitSettled,
  waitWorkersUp,
} from "./fleet-harness.mjs";
import { startSim } from "./run-helpers.mjs";

/** Each worker a host of its own where it can be: its death shows only by its lease. */
const hostOf = (n) => (OWN_HOSTS ? { host: `fleet-host-${n}` } : {});

// 2. kill: kill -9 a random worker of three at a random moment; the invariants after.
export async function kill(bench) {
  const summary = {
    trials: bench.trials,
    passed: 0,
    failed: 0,
    killed_while_submitting: 0,
    held_claims_resolved: 0,
    trials_with_partials_at_settle: 0,
    broken: [],
  };
  for (let trial = 1; trial <= bench.trials; trial++) {
    const folder = caseDir(bench.dir, `kill-${trial}`);
    const sim = await startSim([
      "--latency",
      "image=1s",
      "--lost-response-rate",
      "0.02",
      "--seed",
      `kill-${trial}`,
      // Records and links outlive the trial, at the gateway's own time (links dated tens of
      // thousands of years ahead are more than a client should take).
      ...["--retention", "1d", "--link-ttl", "1d"],
      ...mediaArgs(bench.dir),
    ]);
    const { url, db } = await freshStore(bench.serverUrl);
    const lease = ["--lease", "6s", "--concurrency", "8"];
    const workers = [1, 2, 3].map((n) => startWorker(url, `w${n}`, lease, hostOf(n)));
    const result = { bench: "fleet-kill-trial", trial, workers_on_own_hosts: OWN_HOSTS };
    try {
      await waitWorkersUp(db, workers);
      const file = manifestWith(folder, 300, "100/s", {
        poll: "{ first_after: 1s, every: 250ms, batch_size: 50 }",
      });
      const runId = await recordRun(file, url, sim.url);
      const victim = workers[Math.floor(Math.random() * workers.length)];
      const whileSubmitting = trial % 2 === 1;
      result.victim = victim.name;
      result.mode = whileSubmitting ? "while-submitting" : "random-moment";
      const waitStart = performance.now();
      if (whileSubmitting) {
        for (;;) {
          const { rows } = await db.query(
            "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
            [victim.id],
          );
          if (rows[0].n > 0 || performance.now() - waitStart > 15_000) break;
          await sleep(5);
        }
      } else await sleep(200 + Math.random() * 3000);
      await victim.kill9();
      result.killed_after_ms = Math.round(performance.now() - waitStart);
      const { rows: held } = await db.query(
        "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
        [victim.id],
      );
      result.victim_submitting_claims = held[0].n;
      if (held[0].n > 0) summary.killed_while_submitting++;
      const replacement = startWorker(url, "w4", lease, hostOf(4));
      workers.push(replacement);
      const settled = await waitSettled(db, runId, 120_000);
      result.run_status = settled.status;
      result.exit_code = settled.exit_code ?? null;
      result.settle_s = round(settled.ms / 1000, 2);
      const served = await counters(sim.url);
      const { rows: sums } = await db.query(
        "SELECT COALESCE(SUM(unknown_submits), 0)::int AS unknown, count(*)::int AS tasks FROM jobs WHERE run_id = $1",
        [runId],
      );
      const { rows: notFinal } = await db.query(
        `SELECT state, count(*)::int AS n FROM jobs WHERE run_id = $1
         AND NOT (state = 'done' OR (state = 'failed' AND reason IS NOT NULL)) GROUP BY state`,
        [runId],
      );
      const { rows: ids } = await db.query(
        `SELECT count(*)::int AS n FROM (SELECT task_id FROM jobs WHERE task_id IS NOT NULL
         UNION SELECT task_id FROM orphan_tasks) AS known`,
      );
      const { rows: orphans } = await db.query("SELECT count(*)::int AS n FROM orphan_tasks");
      const { rows: victimLeft } = await db.query(
        "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
        [victim.id],
      );
      const { rows: missing } = await db.query(
        "SELECT o.path FROM outputs o JOIN jobs j ON j.key = o.job_key WHERE j.run_id = $1 AND j.state = 'done' AND o.state = 'downloaded'",
        [runId],
      );
      const lostResponses = served.errors.lost_response ?? 0;
      const outputDir = path.join(folder, "out-300");
      // Partial files: gwrun's partial folder, and temporary names in the output folder (the
      // report's `index.html.<pid>.partial`). Looked at when the run settles, and again after
      // the workers have exited (only the second is an invariant).
      const partialsNow = () => [
        ...filesUnder(path.join(folder, ".gwrun-partial")),
        ...filesUnder(outputDir).filter((file) =>
          /partial|\.tmp|\.part$/i.test(path.basename(file)),
        ),
      ];
      const partialsAtSettle = partialsNow();
      // Recorded paths are relative to the project folder (the manifest's), or absolute.
      const absent = missing.filter(
        (row) => row.path === null || !existsSync(path.resolve(folder, row.path)),
      );
      Object.assign(result, {
        tasks: sums[0].tasks,
        states: await statesOf(db, runId),
        sim_submits_received: served.submits.received,
        sim_submits_repeated: served.submits.repeated,
        sum_unknown_submits: sums[0].unknown,
        lost_responses: lostResponses,
        tasks_created: served.tasks.created,
        task_ids_recorded: ids[0].n,
        orphan_tasks: orphans[0].n,
        partial_files_at_settle: partialsAtSettle.map((file) => path.relative(folder, file)),
        done_outputs_missing_on_disk: absent.length,
        victim_claims_left: victimLeft[0].n,
        run_refusals_by_workers: runRefusals(workers),
      });
      // Per task: the gateway accepted it at most once more than its counted unknown outcomes,
      // so no submit was repeated after its task id was recorded.
      const { rows: requests } = await db.query(
        `SELECT endpoint, r.request, unknown_submits FROM jobs JOIN task_requests r USING (key)
         WHERE run_id = $1 AND placeholder = 0`,
        [runId],
      );
      const accepted = (task) =>
        served.submits.byRequest[
          sha256(`${task.endpoint}\n${canonicalJson(JSON.parse(task.request))}`)
        ] ?? 0;
      const paidTwice = requests.filter((task) => accepted(task) > 1 + task.unknown_submits);
      result.tasks_submitted_again_after_a_recorded_id = paidTwice.length;
      const broken = [];
      if (settled.timedOut) broken.push("run did not settle within 120 s");
      if (paidTwice.length > 0)
        broken.push(`${paidTwice.length} tasks submitted again beyond their unknown outcomes`);
      if (served.submits.repeated > sums[0].unknown)
        broken.push(
          `submits repeated ${served.submits.repeated} > unknown submits ${sums[0].unknown}`,
        );
      if (notFinal.length > 0) broken.push(`tasks not final: ${JSON.stringify(notFinal)}`);
      if (absent.length > 0) broken.push(`${absent.length} done outputs missing on disk`);
      if (served.tasks.created - ids[0].n > sums[0].unknown + lostResponses)
        broken.push(
          `task ids unrecorded: created ${served.tasks.created} - recorded ${ids[0].n} > unknown ${sums[0].unknown} + lost ${lostResponses}`,
        );
      if (victimLeft[0].n > 0)
        broken.push(`victim still holds ${victimLeft[0].n} submitting claims`);
      if (held[0].n > 0 && victimLeft[0].n === 0) summary.held_claims_resolved++;
      result.worker_exits = await stopAll(workers);
      const partials = partialsNow();
      result.partial_files_after_exit = partials.map((file) => path.relative(folder, file));
      if (partials.length > 0)
        broken.push(`partial files left: ${result.partial_files_after_exit.join(", ")}`);
      const bad = result.worker_exits.filter(
        (exit) => exit.name !== victim.name && exit.code !== 0,
      );
      if (bad.length > 0) broken.push(`workers exited badly on SIGTERM: ${JSON.stringify(bad)}`);
      result.invariants = broken.length === 0 ? "ok" : broken;
      if (partialsAtSettle.length > 0) summary.trials_with_partials_at_settle++;
      if (broken.length === 0) summary.passed++;
      else {
        summary.failed++;
        summary.broken.push({ trial, broken });
        for (const worker of workers)
          if (worker.stderr.length > 0)
            log(`trial ${trial} ${worker.name}:\n${worker.stderr.slice(-2000)}`);
      }
      print(result);
    } catch (error) {
      summary.failed++;
      summary.broken.push({ trial, error: String(error) });
      print({ ...result, error: String(error) });
    } finally {
      await endCase(workers, sim, db);
    }
  }
  print({ bench: "fleet-kill", ...summary, target_failed: 0 });
  return summary.failed === 0;
}

const LEADER_SQL = `SELECT a.application_name AS app FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND a.application_name LIKE 'gwrun-leader:%'`;

async function leaderOf(db) {
  const { rows } = await db.query(LEADER_SQL);
  return rows.map((row) => row.app.slice("gwrun-leader:".length));
}

// 3. leader: kill -9 the poll leader mid-run.
export async function leader(bench) {
  const folder = caseDir(bench.dir, "leader");
  const leaseS = 6;
  const sim = await startSim(["--latency", "image=3s", ...mediaArgs(bench.dir)]);
  const { url, db } = await freshStore(bench.serverUrl);
  const lease = ["--lease", `${leaseS}s`, "--concurrency", "8"];
  const workers = [1, 2, 3].map((n) => startWorker(url, `w${n}`, lease, hostOf(n)));
  try {
    await waitWorkersUp(db, workers);
    const file = manifestWith(folder, 900, "25/s", {
      poll: "{ first_after: 3s, every: 500ms, batch_size: 50 }",
    });
    const runId = await recordRun(file, url, sim.url);
    // The leader, once it polls and while it holds submitting claims.
    const waitStart = performance.now();
    let victim;
    let claims = 0;
    for (;;) {
      const [id] = await leaderOf(db);
      victim = workers.find((worker) => worker.id === id);
      const served = await counters(sim.url);
      if (victim !== undefined && served.queries.batch > 0) {
        const { rows } = await db.query(
          "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
          [victim.id],
        );
        claims = rows[0].n;
        if (claims > 0) break;
      }
      if (performance.now() - waitStart > 20_000) break;
      await sleep(5);
    }
    if (victim === undefined) throw new Error("no poll leader found in pg_locks/pg_stat_activity");
    const batchesBefore = (await counters(sim.url)).queries.batch;
    await victim.kill9();
    const killedAt = performance.now();
    const { rows: heldRows } = await db.query(
      "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
      [victim.id],
    );
    let newLeaderMs;
    let newLeader;
    let nextPollMs;
    let batchesAtLeader;
    let claimsResolvedMs = heldRows[0].n === 0 ? 0 : undefined;
    let deadMarkedMs;
    while (performance.now() - killedAt < 60_000) {
      const elapsed = performance.now() - killedAt;
      if (newLeaderMs === undefined) {
        const ids = (await leaderOf(db)).filter((id) => id !== victim.id);
        if (ids.length > 0) {
          newLeaderMs = elapsed;
          newLeader = workers.find((worker) => worker.id === ids[0])?.name ?? ids[0];
          batchesAtLeader = (await counters(sim.url)).queries.batch;
        }
      } else if (nextPollMs === undefined) {
        if ((await counters(sim.url)).queries.batch > batchesAtLeader) nextPollMs = elapsed;
      }
      if (claimsResolvedMs === undefined) {
        const { rows } = await db.query(
          "SELECT count(*)::int AS n FROM jobs WHERE state = 'submitting' AND claimed_by = $1",
          [victim.id],
        );
        if (rows[0].n === 0) claimsResolvedMs = elapsed;
      }
      if (deadMarkedMs === undefined) {
        const { rows } = await db.query("SELECT dead_at FROM workers WHERE id = $1", [victim.id]);
        if (rows[0]?.dead_at !== null) deadMarkedMs = elapsed;
      }
      if (
        newLeaderMs !== undefined &&
        nextPollMs !== undefined &&
        claimsResolvedMs !== undefined &&
        deadMarkedMs !== undefined
      )
        break;
      await sleep(20);
    }
    const settled = await waitSettled(db, runId, 120_000);
    const served = await counters(sim.url);
    const { rows: sums } = await db.query(
      "SELECT COALESCE(SUM(unknown_submits), 0)::int AS unknown FROM jobs WHERE run_id = $1",
      [runId],
    );
    const s = (ms) => (ms === undefined ? null : round(ms / 1000, 2));
    print({
      bench: "fleet-leader",
      workers: 3,
      workers_on_own_hosts: OWN_HOSTS,
      lease_s: leaseS,
      victim: victim.name,
      victim_submitting_claims_at_kill: heldRows[0].n,
      batch_polls_before_kill: batchesBefore,
      new_leader: newLeader ?? null,
      new_leader_s: s(newLeaderMs),
      next_batch_poll_s: s(nextPollMs),
      target_s: 3,
      victim_marked_dead_s: s(deadMarkedMs),
      victim_claims_resolved_s: s(claimsResolvedMs),
      target_claims_resolved_s: leaseS + 10,
      run_status: settled.status,
      exit_code: settled.exit_code ?? null,
      states: await statesOf(db, runId),
      submits_repeated: served.submits.repeated,
      sum_unknown_submits: sums[0].unknown,
      worker_exits: await stopAll(workers),
    });
  } finally {
    await endCase(workers, sim, db);
  }
}
