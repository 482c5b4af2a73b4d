import type { ReportScope } from "../port.js";

/**
 * The scope's tasks as the table `scope(key, place)`, opening a query; its one parameter is
 * `$1`. The rule is the SQLite adapter's (`../sqlite/scope.ts`): `place` is where the task was
 * first recorded; in a folder each label keeps one take — the latest done one, else the latest.
 */
export function withScope(scope: ReportScope): { sql: string; param: number | string } {
  if ("run" in scope) {
    return {
      sql: `WITH scope(key, place) AS (
        SELECT jobs.key, jobs.place FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
        WHERE run_jobs.run_id = $1)`,
      param: scope.run,
    };
  }
  return {
    sql: `WITH takes AS (
        SELECT jobs.key, min(jobs.place) OVER (PARTITION BY jobs.label) AS place,
          row_number() OVER (
            PARTITION BY jobs.label
            ORDER BY jobs.state = 'done' DESC, run_jobs.run_id DESC, jobs.place DESC) AS take
        FROM runs JOIN run_jobs ON run_jobs.run_id = runs.id JOIN jobs ON jobs.key = run_jobs.key
        WHERE runs.output_dir = $1),
      scope(key, place) AS (SELECT key, place FROM takes WHERE take = 1)`,
    param: scope.folder,
  };
}
