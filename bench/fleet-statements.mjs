// What the fleet's 10,000-task bench compares itself with, and what it costs the database:
// - one `gwrun run` process on a SQLite store against the same simulator settings, the same
//   manifest shape (its jobs per second);
// - the statements a run costs PostgreSQL, counted by pg_stat_statements (loaded by
//   bench/postgres.mjs): every statement a client sent to the run's database (`toplevel`, so
//   a function's inner statements and trigger bodies are not counted again, nor the bodies of
//   SQL functions, which it marks top level when a trigger calls them), BEGIN and COMMIT
//   included, graphile-worker's fetches and completions included, the bench's own reads not.
import { readFileSync } from "node:fs";
import path from "node:path";
import { caseDir, manifestWith, mediaArgs, round } from "./fleet-harness.mjs";
import { runGwrun, startSim, ZERO_LATENCY } from "./run-helpers.mjs";

/** The bench's own statements on the run's database, left out of the count. */
const OWN = ["%pg_stat_statements%", "SELECT status, exit_code FROM runs WHERE id = $1"];

/**
 * Starts counting the statements on the database of `db` (a pool on it, as a superuser):
 * false when the server has not loaded pg_stat_statements (an external server).
 */
export async function startCountingStatements(db) {
  try {
    await db.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    await db.query("SELECT pg_stat_statements_reset()");
    return true;
  } catch {
    return false;
  }
}

/** The statements counted on `db`'s database since `startCountingStatements`, and the busiest. */
export async function countedStatements(db, top = 16) {
  const { rows } = await db.query(
    `SELECT query, calls::bigint AS calls, total_exec_time AS ms FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       AND toplevel AND NOT query LIKE ANY($1::text[])
       -- The body of a SQL function a trigger called shows as top level too: no client sent it.
       AND NOT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
                       WHERE l.lanname = 'sql' AND position(btrim(query) IN p.prosrc) > 0)
     ORDER BY calls DESC`,
    [OWN],
  );
  const total = rows.reduce((sum, row) => sum + Number(row.calls), 0);
  const busiest = rows.slice(0, top).map((row) => ({
    calls: Number(row.calls),
    ms: Math.round(row.ms),
    query: row.query.replace(/\s+/g, " ").slice(0, 100),
  }));
  return { total, busiest };
}

const TICKS_PER_S = 100;

/** A process's CPU seconds (user + system) so far; `children`: those of its children waited for. */
function cpuOf(pid, { children = false } = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces): utime is the 14th field.
    const fields = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    const own = fields[11] + fields[12];
    return (own + (children ? fields[13] + fields[14] : 0)) / TICKS_PER_S;
  } catch {
    return 0;
  }
}

/**
 * CPU seconds of a whole PostgreSQL server, the one `db` is on (when it runs on this machine
 * and this process may read its folder): its postmaster, its live backends and those that
 * ended. undefined when it cannot be read.
 */
export async function serverCpuSeconds(db) {
  try {
    const { rows } = await db.query("SELECT current_setting('data_directory') AS dir");
    const postmaster = Number(
      readFileSync(path.join(rows[0].dir, "postmaster.pid"), "utf8").split("\n")[0],
    );
    const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, "utf8")
      .split(" ")
      .filter(Boolean)
      .map(Number);
    return children.reduce((sum, pid) => sum + cpuOf(pid), cpuOf(postmaster, { children: true }));
  } catch {
    return undefined;
  }
}

/** CPU seconds of the processes `pids` so far. */
export const cpuSeconds = (pids) => pids.reduce((sum, pid) => sum + cpuOf(pid), 0);

/**
 * One `gwrun run` process doing what the fleet does: `tasks` pictures from a simulator with
 * the fleet bench's settings, on a SQLite store. { jobs_per_s, exit_code, wall_s }.
 */
export async function singleProcess(bench, name, tasks) {
  const folder = caseDir(bench.dir, name);
  const sim = await startSim([...ZERO_LATENCY, ...mediaArgs(bench.dir)]);
  try {
    const run = await runGwrun(manifestWith(folder, tasks, "5000/s"), sim.url);
    if (run.code !== 0) process.stderr.write(run.stderr);
    return {
      jobs_per_s: Math.round(tasks / run.seconds),
      exit_code: run.code,
      wall_s: round(run.seconds, 2),
      folder: path.basename(folder),
    };
  } finally {
    sim.stop();
  }
}
