import type { Dialect } from "../dialect.js";
import { FAILED_STATES } from "../states.js";

/**
 * A run's tasks as reads that count, sort or filter all of them join them: through the narrow
 * index `jobs_of_runs` (sql/000015), so a run of 300,000 tasks is never read through its
 * requests. The query filters on `run_jobs.run_id`.
 */
export function runTasks(d: Dialect): string {
  return `run_jobs JOIN ${d.indexedBy("jobs", "jobs_of_runs")} ON jobs.key = run_jobs.key`;
}

/** The states a task ends in without its outputs, as SQL's list of them. */
const FAILED_LIST = FAILED_STATES.map((state) => `'${state}'`).join(", ");

/**
 * A run's tasks that ended without their outputs, found through the partial index
 * `jobs_failed` (sql/000015) among the few that failed, not among all of the run's tasks:
 * SQLite's CROSS JOIN keeps that order. Its states are written out, as the index's are. Its
 * one parameter is the run.
 */
export function runFailures(d: Dialect): string {
  return `FROM ${d.indexedBy("jobs", "jobs_failed")} CROSS JOIN run_jobs
    WHERE jobs.state IN (${FAILED_LIST}) AND run_jobs.key = jobs.key AND run_jobs.run_id = ?`;
}

/** Where `places` (a page, in order) are in it: rows sorted as the page was. */
export function inPageOrder<R extends { place: number }>(
  places: readonly number[],
  found: R[],
  then: (a: R, b: R) => number = () => 0,
): R[] {
  const at = new Map(places.map((place, i) => [place, i]));
  const position = (row: R) => at.get(Number(row.place)) ?? 0;
  return found.sort((a, b) => position(a) - position(b) || then(a, b));
}
