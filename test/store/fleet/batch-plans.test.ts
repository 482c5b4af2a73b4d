import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";

/**
 * The store's batches of receipts, files and checks are functions that plan their statement
 * once per connection (sql/pg/000027). A plan made while a table is small is kept as it grows:
 * it must read rows by key for the keys it is given, never a whole table.
 */

afterEach(closeFleetStores);

/**
 * The table reads in `plan` that are not by key: a sequential scan, or an index scan whose
 * condition names no key (a scan of every pending output is one). A worker's own claims
 * (`claimed_by`) are few: at most the tasks of the submit jobs it runs at once.
 */
function readsNotByKey(plan: string): string[] {
  const lines = plan.split("\n");
  return lines.flatMap((line, i) => {
    if (/Seq Scan/.test(line)) return [line.trim()];
    if (!/Index (Only )?Scan/.test(line)) return [];
    const condition = lines[i + 1] ?? "";
    return /Index Cond: .*\b(job_key|key|task_id|claimed_by) = /.test(condition)
      ? []
      : [`${line.trim()} ${condition.trim()}`];
  });
}

describe("the plans the store's batch functions keep", () => {
  it("read the given tasks' rows by key once the tables have grown a thousandfold", async () => {
    const { url, rows, runId } = await fleet(1, 3);
    const [a, b, c] = rows.map((row) => row.key) as [string, string, string];
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      await sql.query("UPDATE jobs SET state = 'completed'");
      await sql.query(
        `INSERT INTO outputs (job_key, idx, url, expires_at, state)
         SELECT key, 0, 'https://cdn.test/' || key, 1, 'pending' FROM jobs`,
      );
      await sql.query("UPDATE jobs SET state = 'submitting', claimed_by = 'w' WHERE key = $1", [c]);
      const markFile = (key: string) =>
        sql.query(
          "SELECT * FROM gwrun_mark_downloads('downloaded', 5, '{completed}', $1, '{0}', $2, '{9}', '{s}', '{image/png}', '{5}')",
          [[key], [`/out/${key}.png`]],
        );
      const keepCheck = (key: string) =>
        sql.query(
          "SELECT * FROM gwrun_keep_checks('done', 6, '{downloaded}', $1, $1, '{0}', '{ok}', '{}', '{NULL}', '{NULL}')",
          [[key]],
        );
      const receipt = (key: string, taskId: string) =>
        sql.query("SELECT * FROM gwrun_record_receipts('w', 7, $1::jsonb, $2, $3)", [
          JSON.stringify([
            {
              key,
              state: "submitted",
              task_id: taskId,
              submitted_at: 7,
              next_poll_at: 8,
              claimed_by: null,
              unknown_submits: 0,
              paid_run: runId,
            },
          ]),
          [key],
          [taskId],
        ]);
      // Each plan is made now, while the tables hold three tasks.
      await markFile(a);
      await keepCheck(a);
      await receipt(c, "t-made-small");
      await sql.query(
        `INSERT INTO jobs (key, run_id, job_id, label, lane, endpoint, state, task_id,
           created_at, updated_at)
         SELECT 'grown-' || n, run_id, job_id, 'grown ' || n, lane, endpoint, 'completed',
           'grown-task-' || n, 1, 1
         FROM jobs CROSS JOIN generate_series(1, 3000) AS n WHERE key = $1`,
        [a],
      );
      await sql.query(
        `INSERT INTO outputs (job_key, idx, url, expires_at, state)
         SELECT key, 0, 'https://cdn.test/' || key, 1, 'pending' FROM jobs
         WHERE key LIKE 'grown-%'`,
      );
      await sql.query("UPDATE jobs SET state = 'submitting', claimed_by = 'w' WHERE key = $1", [c]);
      const plans: string[] = [];
      sql.on("notice", (notice) => plans.push(notice.message ?? ""));
      await sql.query("LOAD 'auto_explain'");
      await sql.query(
        "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET client_min_messages = log",
      );
      expect((await markFile(b)).rows).toEqual([
        { task_key: b, output_idx: 0 },
        { task_key: b, output_idx: null },
      ]);
      expect((await keepCheck(b)).rows).toEqual([{ task_key: b }]);
      expect((await receipt(c, "t-grown")).rows).toEqual([
        { task_key: c, moved: true, duplicate_of: null },
      ]);
      const inner = plans.filter((plan) => /Query Text: WITH/.test(plan));
      expect(inner).toHaveLength(3);
      expect(inner.flatMap(readsNotByKey)).toEqual([]);
    } finally {
      await sql.end();
    }
  });
});
