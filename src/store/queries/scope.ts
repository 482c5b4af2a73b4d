import type { ForDialect } from "../dialect.js";
import type { ReportScope } from "../port.js";
import { runTasks } from "./run-tasks.js";

/**
 * The scope's tasks as the table `scope(key, place)`, opening a query; its one parameter
 * comes first. `place` orders them: where the task was first recorded. In a folder each
 * label keeps one take, placed where the label was first recorded: an edited prompt is a new
 * key under the same label (writing the same file). The take is the latest done one — a newer
 * take not done yet (stopped, failed) has not replaced its file — else the latest.
 */
export function withScope(scope: ReportScope): { sql: ForDialect; param: number | string } {
  if ("run" in scope) {
    return {
      sql: (d) => `WITH scope(key, place) AS (
        SELECT jobs.key, ${d.place} FROM ${runTasks(d)} WHERE run_jobs.run_id = ?)`,
      param: scope.run,
    };
  }
  return {
    sql: (d) => `WITH takes AS (
        SELECT jobs.key, min(${d.place}) OVER (PARTITION BY jobs.label) AS place,
          row_number() OVER (
            PARTITION BY jobs.label
            ORDER BY jobs.state = 'done' DESC, run_jobs.run_id DESC, ${d.place} DESC) AS take
        FROM runs JOIN run_jobs ON run_jobs.run_id = runs.id
          JOIN ${d.indexedBy("jobs", "jobs_of_runs")} ON jobs.key = run_jobs.key
        WHERE runs.output_dir = ?),
      scope(key, place) AS (SELECT key, place FROM takes WHERE take = 1)`,
    param: scope.folder,
  };
}

/**
 * The scope's task keys as the table `scope(key)`, opening a query, for what joins other
 * rows to them: a run's come from `run_jobs` alone, without a join of 300,000 task rows
 * that adds nothing to a count. Its one parameter comes first.
 */
export function withScopeKeys(scope: ReportScope): { sql: ForDialect; param: number | string } {
  if ("run" in scope)
    return {
      sql: () => "WITH scope(key) AS (SELECT run_jobs.key FROM run_jobs WHERE run_jobs.run_id = ?)",
      param: scope.run,
    };
  return withScope(scope);
}

/**
 * The scope's tasks as `jobs`, for a query `${opening(d)} SELECT … ${from(d)}` and more
 * conditions.
 */
export interface ScopeTasks {
  /** What opens the query ("" or a WITH), then the FROM and WHERE its tasks are read by. */
  opening: ForDialect;
  from: ForDialect;
  /** The query's parameters: the scope's own where they go, among those of its SELECT and after. */
  params(select: readonly unknown[], after?: readonly unknown[]): unknown[];
  /** What orders the scope's tasks (see `withScope`). */
  place: ForDialect;
}

/**
 * The scope's tasks as `jobs`, read through the narrow index `jobs_of_runs`: a run's are read
 * once, not as `scope` and again by key.
 */
export function scopeTasks(scope: ReportScope): ScopeTasks {
  if ("run" in scope)
    return {
      opening: () => "",
      from: (d) => `FROM ${runTasks(d)} WHERE run_jobs.run_id = ?`,
      params: (select, after = []) => [...select, scope.run, ...after],
      place: (d) => d.place,
    };
  const { sql, param } = withScope(scope);
  return {
    opening: sql,
    from: (d) =>
      `FROM scope JOIN ${d.indexedBy("jobs", "jobs_of_runs")} ON jobs.key = scope.key WHERE TRUE`,
    params: (select, after = []) => [param, ...select, ...after],
    place: () => "scope.place",
  };
}
