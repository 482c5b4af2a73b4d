// The finished run of bench/view-store.mjs on a PostgreSQL store: tasks recorded through the
// store, then their ends, outputs, reviews and event log written set by set (setup only), and
// the tables vacuumed and analysed as autovacuum leaves a settled database.
import pg from "pg";
import { openPgStore } from "../dist/store/index.js";
import { MOVES, recordBenchRun } from "./view-store.mjs";

/** Tasks per statement. */
const CHUNK = 20_000;

/** Records the run in the empty database at `url`; returns the store and the run id. */
export async function finishedPgRunStore(url, dir, outputs) {
  const store = await openPgStore(url);
  const { runId, tasks, thumb, outputDir } = await recordBenchRun(store, dir, outputs);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let start = 0; start < tasks.length; start += CHUNK) {
      const keys = tasks.slice(start, start + CHUNK).map((task) => task.key);
      const at = keys.map((_, i) => 1000 + start + i);
      const given = "unnest($1::text[], $2::bigint[]) AS t(key, at)";
      // As view-store.mjs: the task at index i fails when i % 100 is 99.
      const failed = "(t.at - 1000) % 100 = 99";
      await client.query(
        `UPDATE jobs SET state = CASE WHEN ${failed} THEN 'failed' ELSE 'done' END,
           reason = CASE WHEN ${failed} THEN 'the gateway refused the prompt' END,
           cost = 0.1, paid_run = $3, task_id = 'task_' || (t.at - 1000), submitted_at = t.at,
           completed_at = t.at + 5, done_at = CASE WHEN ${failed} THEN NULL ELSE t.at + 9 END,
           updated_at = t.at + 9
         FROM ${given} WHERE jobs.key = t.key`,
        [keys, at, runId],
      );
      await client.query(
        `INSERT INTO outputs (job_key, idx, state, path, bytes, sha256, content_type, check_state, checks, thumbnail, downloaded_at)
         SELECT t.key, 0, 'downloaded', $3 || '/shots' || ((t.at - 1000) % 4) || '-e' || (t.at - 1000) || '.png',
           1000, repeat('0', 64), 'image/png', 'ok', '{"problems":[]}', $4, t.at + 4
         FROM ${given} WHERE NOT ${failed}`,
        [keys, at, outputDir, thumb],
      );
      await client.query(
        `INSERT INTO reviews (job_key, idx, decision, note, decided_at)
         SELECT t.key, 0, CASE WHEN (t.at - 1000) % 4 = 0 THEN 'approved' ELSE 'rejected' END, 'a note', 0
         FROM ${given} WHERE NOT ${failed} AND (t.at - 1000) % 2 = 0`,
        [keys, at],
      );
      await client.query(
        `INSERT INTO events (run_id, at, job_key, type, data)
         SELECT $3, t.at + m.step, t.key,
           CASE WHEN ${failed} AND m.step = 3 THEN 'job:failed' ELSE 'job:' || m.move END, NULL
         FROM ${given} CROSS JOIN unnest($4::text[]) WITH ORDINALITY AS m(move, step)
         WHERE NOT ${failed} OR m.step <= 3`,
        [keys, at, runId, MOVES],
      );
    }
    await client.query("UPDATE runs SET status = 'done', finished_at = $1 WHERE id = $2", [
      1000 + outputs + 10,
      runId,
    ]);
    await client.query("VACUUM ANALYZE");
  } finally {
    await client.end();
  }
  return { store, runId, tasks, outputDir };
}
