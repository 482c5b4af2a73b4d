import { checkedMove } from "../move.js";
import type { BatchKind, BatchOf, BatchResult } from "../program.js";
import { NEW_TASK_COLUMNS, NEW_TASK_NAMES } from "../queries/tasks.js";
import type { Transition } from "../transition-patches.js";
import { varsColumn } from "../variables.js";
import type { Sql } from "./db.js";
import { lockTasks, logged, movesOnly } from "./moves.js";

/**
 * The batches as PostgreSQL makes them: one statement each (per page of tasks, or per kind of
 * move), whatever their size. A poll round of fifty tasks made a hundred round trips one at a
 * time, and a transaction took five round trips per downloaded file.
 */

/** Tasks per statement when recording many. */
const PAGE = 5000;

type Batches = { [K in BatchKind]: (sql: Sql, batch: BatchOf<K>) => Promise<BatchResult<K>> };

/** A page of new tasks, in their order; a known key is left as it is. */
const INSERT_TASKS = `
  INSERT INTO jobs (run_id, state, created_at, updated_at, ${NEW_TASK_NAMES})
  SELECT $1, 'pending', $2, $2, ${NEW_TASK_NAMES}
  FROM unnest(${NEW_TASK_COLUMNS.map(([, type], i) => `$${i + 3}::${type}[]`).join(", ")})
    WITH ORDINALITY AS t(${NEW_TASK_NAMES}, n)
  ORDER BY t.n
  ON CONFLICT (key) DO NOTHING RETURNING key`;

/** Their requests, beside them; a known key keeps the one it has (as its row does). */
const INSERT_REQUESTS = `
  INSERT INTO task_requests (key, request)
  SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (key) DO NOTHING`;

/** The values of `pick` of each item, as one array parameter. */
const column = <T, V>(items: readonly T[], pick: (item: T) => V) => items.map(pick);

export const BATCHES: Batches = {
  /** One statement for each kind of move (the same states and columns). */
  moves: async (sql, { moves, now }) => {
    const kinds = new Map<string, { transition: Transition; columns: string[]; given: object[] }>();
    for (const { key, transition } of moves) {
      const { columns, values } = checkedMove(transition.from, transition.to, transition.patch);
      const kind = JSON.stringify([transition.from, transition.to, columns]);
      const entry = kinds.get(kind) ?? { transition, columns, given: [] };
      entry.given.push(
        Object.fromEntries([["key", key], ...columns.map((c, i) => [c, values[i]])]),
      );
      kinds.set(kind, entry);
    }
    const moved = new Set<string>();
    for (const { transition, columns, given } of kinds.values()) {
      const set = columns.map((name) => `, ${name} = g.${name}`).join("");
      const reason = columns.includes("reason") ? "g.reason" : "NULL";
      const found = await sql.query<{ key: string }>(
        `WITH moved AS (
           UPDATE jobs j SET state = $1, updated_at = $2${set}
           FROM jsonb_populate_recordset(NULL::jobs, $4::jsonb) g
           WHERE j.key = g.key AND j.state = ANY($3::text[])
           RETURNING j.run_id, j.key, ${reason} AS reason),
         ${logged("reason")}
         SELECT key FROM moved`,
        [transition.to, now, [...transition.from], JSON.stringify(given)],
      );
      for (const { key } of found.rows) moved.add(key);
    }
    return moved;
  },
  insertTasks: async (sql, { runId, tasks, now }) => {
    const added = new Set<string>();
    for (let start = 0; start < tasks.length; start += PAGE) {
      const page = tasks.slice(start, start + PAGE);
      const keys = column(page, (task) => task.key);
      await lockTasks(sql, keys);
      const inserted = await sql.query<{ key: string }>(INSERT_TASKS, [
        runId,
        now,
        ...NEW_TASK_COLUMNS.map(([, , value]) => column(page, value)),
      ]);
      const fresh = new Set(inserted.rows.map((found) => found.key));
      for (const key of fresh) added.add(key);
      await sql.query(INSERT_REQUESTS, [keys, column(page, (task) => task.request)]);
      const known = page.filter((task) => !fresh.has(task.key));
      // A known key joins this run as it is: only its run and names (label, variables) change.
      if (known.length > 0)
        await sql.query(
          `UPDATE jobs SET run_id = $1, job_id = t.job_id, label = t.label,
             vars = CASE WHEN t.has_vars THEN t.vars ELSE jobs.vars END
           FROM unnest($2::text[], $3::text[], $4::text[], $5::boolean[], $6::text[])
             AS t(key, job_id, label, has_vars, vars)
           WHERE jobs.key = t.key`,
          [
            runId,
            column(known, (task) => task.key),
            column(known, (task) => task.jobId),
            column(known, (task) => task.label),
            column(known, (task) => task.vars !== undefined),
            column(known, varsColumn),
          ],
        );
      await sql.query(
        `INSERT INTO run_jobs (run_id, key) SELECT $1, key FROM unnest($2::text[]) AS t(key)
         ON CONFLICT DO NOTHING`,
        [runId, keys],
      );
    }
    return added;
  },
  notes: async (sql, { notes }) => {
    if (notes.length === 0) return new Set();
    const given = notes.map(({ key, progress, polls, nextPollAt }) => ({
      key,
      progress,
      polls,
      next_poll_at: nextPollAt,
    }));
    const noted = await sql.query<{ key: string }>(
      `UPDATE jobs j SET progress = g.progress, polls = g.polls, next_poll_at = g.next_poll_at
       FROM jsonb_populate_recordset(NULL::jobs, $1::jsonb) g
       WHERE j.key = g.key AND j.state IN ('submitted', 'processing')
       RETURNING j.key`,
      [JSON.stringify(given)],
    );
    return new Set(noted.rows.map((one) => one.key));
  },
  insertOutputs: async (sql, { outputs }) => {
    const all = outputs.flatMap(({ key, links }) => links.map((link, idx) => ({ key, idx, link })));
    if (all.length === 0) return;
    await sql.query(
      `INSERT INTO outputs (job_key, idx, url, expires_at, state)
       SELECT t.key, t.idx, t.url, t.expires_at, 'pending'
       FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[]) AS t(key, idx, url, expires_at)
       ON CONFLICT DO NOTHING`,
      [
        column(all, (one) => one.key),
        column(all, (one) => one.idx),
        column(all, (one) => one.link.url),
        column(all, (one) => one.link.expiresAt),
      ],
    );
  },
  /** One call of `gwrun_mark_downloads` (sql/pg/000027), which plans its statement once. */
  markDownloads: async (sql, { files, move: { from, to, patch }, now }) => {
    movesOnly(checkedMove(from, to, patch).columns, [], "gwrun_mark_downloads");
    const found = await sql.query<{ key: string; idx: number | null }>(
      `SELECT task_key AS key, output_idx AS idx
         FROM gwrun_mark_downloads($1, $2, $3::text[], $4::text[], $5::int[], $6::text[],
           $7::bigint[], $8::text[], $9::text[], $10::bigint[])`,
      [
        to,
        now,
        [...from],
        column(files, (file) => file.task.key),
        column(files, (file) => file.idx),
        column(files, (file) => file.path),
        column(files, (file) => file.bytes),
        column(files, (file) => file.sha256),
        column(files, (file) => file.contentType),
        column(files, (file) => file.downloadedAt ?? now),
      ],
    );
    const markOf = (output: { key: string; idx: number | null }) => `${output.idx} ${output.key}`;
    const marked = new Set(found.rows.filter((one) => one.idx !== null).map(markOf));
    return {
      marked: files.map((file) => marked.has(markOf({ key: file.task.key, idx: file.idx }))),
      moved: new Set(found.rows.filter((one) => one.idx === null).map((one) => one.key)),
    };
  },
  /** One call of `gwrun_keep_checks` (sql/pg/000027): the move sets `done_at` to `now`. */
  keepChecks: async (sql, { kept, passed, move: { from, to, patch }, now }) => {
    movesOnly(checkedMove(from, to, patch).columns, ["done_at"], "gwrun_keep_checks");
    if (patch.done_at !== now)
      throw new Error("gwrun_keep_checks sets done_at to the time of the move");
    const moved = await sql.query<{ key: string }>(
      `SELECT task_key AS key
         FROM gwrun_keep_checks($1, $2, $3::text[], $4::text[], $5::text[], $6::int[],
           $7::text[], $8::text[], $9::text[], $10::text[])`,
      [
        to,
        now,
        [...from],
        [...passed],
        column(kept, (one) => one.key),
        column(kept, (one) => one.idx),
        column(kept, (one) => one.checkState),
        column(kept, (one) => one.checks),
        column(kept, (one) => one.thumbnail),
        column(kept, (one) => one.poster),
      ],
    );
    return new Set(moved.rows.map((one) => one.key));
  },
  copies: async (sql, { copies }) => {
    await sql.query(
      `INSERT INTO output_copies (job_key, idx, output_dir, path, thumbnail, poster, copied_at)
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::bigint[])
       ON CONFLICT (job_key, idx, output_dir) DO UPDATE SET path = excluded.path,
         thumbnail = excluded.thumbnail, poster = excluded.poster, copied_at = excluded.copied_at`,
      [
        column(copies, (copy) => copy.job_key),
        column(copies, (copy) => copy.idx),
        column(copies, (copy) => copy.output_dir),
        column(copies, (copy) => copy.path),
        column(copies, (copy) => copy.thumbnail),
        column(copies, (copy) => copy.poster),
        column(copies, (copy) => copy.copied_at),
      ],
    );
  },
  links: async (sql, { key, links }) => {
    await sql.query(
      `UPDATE outputs SET url = t.url, expires_at = t.expires_at
       FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS t(url, expires_at, n)
       WHERE outputs.job_key = $1 AND outputs.idx = t.n - 1`,
      [key, column(links, (link) => link.url), column(links, (link) => link.expiresAt)],
    );
  },
};
