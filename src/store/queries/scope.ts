import type { ReportScope } from "../port.js";

/**
 * The scope's tasks as the table `scope(key, place)`, opening a query; its one parameter
 * comes first. `place` orders them: where the task was first recorded. In a folder each
 * label keeps one take, placed where the label was first recorded: an edited prompt is a new
 * key under the same label (writing the same file). The take is the latest done one — a newer
 * take not done yet (stopped, failed) has not replaced its file — else the latest.
 */
export function withScope(scope: ReportScope): { sql: string; param: number | string } {
  if ("run" in scope) {
    return {
      sql: `WITH scope(key, place) AS (
        SELECT jobs.key, jobs.place FROM run_jobs JOIN jobs ON jobs.key = run_jobs.key
        WHERE run_jobs.run_id = ?)`,
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
        WHERE runs.output_dir = ?),
      scope(key, place) AS (SELECT key, place FROM takes WHERE take = 1)`,
    param: scope.folder,
  };
}
