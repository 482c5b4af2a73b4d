import type { TaskRow, TextAnswerRow } from "../rows.js";
import { checkedEvent, doneEvent, downloadedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { DownloadedFile, OutputCheck, OutputLink } from "../transition-inputs.js";
import { ALL_DOWNLOADED, checkColumnsOf, doneOf, textAnsweredOf } from "../transition-patches.js";
import { type PgDb, rows, type Sql } from "./db.js";
import { moveBy, moveSet } from "./tasks.js";

/** A task's outputs from download to checks, as `../sqlite/outputs.ts` records them. */

/** Records completed tasks' output links (kept when already recorded), in one statement. */
export async function insertOutputs(
  sql: Sql,
  completed: readonly { key: string; links: readonly OutputLink[] }[],
): Promise<void> {
  const all = completed.flatMap(({ key, links }) => links.map((link, idx) => ({ key, idx, link })));
  if (all.length === 0) return;
  await sql.query(
    `INSERT INTO outputs (job_key, idx, url, expires_at, state)
     SELECT t.key, t.idx, t.url, t.expires_at, 'pending'
     FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[]) AS t(key, idx, url, expires_at)
     ON CONFLICT DO NOTHING`,
    [
      all.map((one) => one.key),
      all.map((one) => one.idx),
      all.map((one) => one.link.url),
      all.map((one) => one.link.expiresAt),
    ],
  );
}

export async function updateLinks(
  db: PgDb,
  key: string,
  links: readonly OutputLink[],
): Promise<void> {
  if (links.length === 0) return;
  await db.pool.query(
    `UPDATE outputs SET url = t.url, expires_at = t.expires_at
     FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS t(url, expires_at, n)
     WHERE outputs.job_key = $1 AND outputs.idx = t.n - 1`,
    [key, links.map((link) => link.url), links.map((link) => link.expiresAt)],
  );
}

/**
 * Records downloaded files in one statement: each pending output marked, and each task whose
 * outputs are all downloaded now moved completed → downloaded, with its event. The statement's
 * parts see the outputs as they were before it, so a file marked in it counts as downloaded.
 * One round trip for a turn's files, where a transaction took five per file.
 */
export async function recordDownloads(
  db: PgDb,
  files: readonly DownloadedFile[],
  now: number,
): Promise<{ events: TaskEvent[]; complete: Set<string> }> {
  if (files.length === 0) return { events: [], complete: new Set() };
  const { from, to, patch } = ALL_DOWNLOADED;
  const { set, values } = moveSet(from, to, patch, 11);
  const found = await db.statement((sql) =>
    rows<{ key: string; idx: number | null }>(
      sql,
      `WITH given AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::text[], $6::text[],
           $10::bigint[]) AS g(key, idx, path, bytes, sha256, content_type, downloaded_at)),
       marked AS (
         UPDATE outputs o SET state = 'downloaded', path = g.path, bytes = g.bytes,
           sha256 = g.sha256, content_type = g.content_type, downloaded_at = g.downloaded_at
         FROM given g WHERE o.job_key = g.key AND o.idx = g.idx AND o.state = 'pending'
         RETURNING o.job_key, o.idx),
       moved AS (
         UPDATE jobs j SET state = $7, updated_at = $8${set}
         WHERE j.key IN (SELECT job_key FROM marked) AND j.state = ANY($9::text[])
           AND NOT EXISTS (
             SELECT 1 FROM outputs o WHERE o.job_key = j.key AND o.state <> 'downloaded'
               AND NOT EXISTS (SELECT 1 FROM marked m WHERE m.job_key = o.job_key AND m.idx = o.idx))
         RETURNING j.run_id, j.key),
       logged AS (
         INSERT INTO events (run_id, at, job_key, type, data)
         SELECT run_id, $8, key, 'job:' || $7, NULL FROM moved)
       SELECT job_key AS key, idx FROM marked UNION ALL SELECT key, NULL FROM moved`,
      [
        files.map((file) => file.task.key),
        files.map((file) => file.idx),
        files.map((file) => file.path),
        files.map((file) => file.bytes),
        files.map((file) => file.sha256),
        files.map((file) => file.contentType),
        to,
        now,
        [...from],
        files.map((file) => file.downloadedAt ?? now),
        ...values,
      ],
    ),
  );
  const marked = new Set(found.filter((one) => one.idx !== null).map(markOf));
  const complete = new Set(found.filter((one) => one.idx === null).map((one) => one.key));
  const events = files
    .filter((file) => marked.has(markOf({ key: file.task.key, idx: file.idx })))
    .map((file) => downloadedEvent(file.task, file));
  return { events, complete };
}

const markOf = (output: { key: string; idx: number | null }) => `${output.idx} ${output.key}`;

export function recordTextAnswer(
  db: PgDb,
  task: TaskRow,
  answer: Omit<TextAnswerRow, "job_key" | "answered_at">,
  files: readonly Omit<DownloadedFile, "task" | "idx">[],
  now: number,
): Promise<{ moved: boolean; events: TaskEvent[] }> {
  return db.transaction(async (sql) => {
    if (!(await moveBy(sql, task.key, textAnsweredOf(task, now), now)))
      return { moved: false, events: [] };
    await sql.query("DELETE FROM outputs WHERE job_key = $1", [task.key]);
    await insertOutputs(sql, [
      { key: task.key, links: files.map(() => ({ url: null, expiresAt: null })) },
    ]);
    for (const [idx, file] of files.entries())
      await sql.query(
        `UPDATE outputs SET state = 'downloaded', path = $1, bytes = $2, sha256 = $3, content_type = $4,
           downloaded_at = $7
         WHERE job_key = $5 AND idx = $6`,
        [file.path, file.bytes, file.sha256, file.contentType, task.key, idx, now],
      );
    await sql.query(
      `INSERT INTO text_answers
         (job_key, format, model, text, choices, finish_reason, usage, tool_calls, refusal, streamed, answered_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (job_key) DO UPDATE SET format = excluded.format, model = excluded.model,
         text = excluded.text, choices = excluded.choices, finish_reason = excluded.finish_reason,
         usage = excluded.usage, tool_calls = excluded.tool_calls, refusal = excluded.refusal,
         streamed = excluded.streamed, answered_at = excluded.answered_at`,
      [
        task.key,
        answer.format,
        answer.model,
        answer.text,
        answer.choices,
        answer.finish_reason,
        answer.usage,
        answer.tool_calls,
        answer.refusal,
        answer.streamed,
        now,
      ],
    );
    return { moved: true, events: files.map((file) => downloadedEvent(task, file)) };
  });
}

/**
 * Keeps each output's checks and moves each task whose checks all passed downloaded → done,
 * with its event, in one statement.
 */
export async function recordChecks(
  db: PgDb,
  checked: readonly { task: TaskRow; checks: readonly OutputCheck[] }[],
  now: number,
): Promise<{ done: Set<string>; events: TaskEvent[] }> {
  if (checked.length === 0) return { done: new Set(), events: [] };
  const all = checked.flatMap(({ task, checks }) => checks.map((check) => ({ task, check })));
  const kept = all.map(({ check }) => checkColumnsOf(check));
  const passed = checked.filter(({ checks }) => checks.every((check) => check.ok));
  const { from, to, patch } = doneOf(now);
  const { set, values } = moveSet(from, to, patch, 11);
  const moved = await db.statement((sql) =>
    rows<{ key: string }>(
      sql,
      `WITH given AS (
         SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])
           AS g(key, idx, check_state, checks, thumbnail, poster)),
       kept AS (
         UPDATE outputs o SET check_state = g.check_state, checks = g.checks,
           thumbnail = g.thumbnail, poster = g.poster
         FROM given g WHERE o.job_key = g.key AND o.idx = g.idx),
       moved AS (
         UPDATE jobs SET state = $7, updated_at = $8${set}
         WHERE key = ANY($9::text[]) AND state = ANY($10::text[])
         RETURNING run_id, key),
       logged AS (
         INSERT INTO events (run_id, at, job_key, type, data)
         SELECT run_id, $8, key, 'job:' || $7, NULL FROM moved)
       SELECT key FROM moved`,
      [
        all.map(({ task }) => task.key),
        all.map(({ check }) => check.index),
        kept.map((one) => one.checkState),
        kept.map((one) => one.checks),
        all.map(({ check }) => check.thumbnail),
        all.map(({ check }) => check.poster),
        to,
        now,
        passed.map(({ task }) => task.key),
        [...from],
        ...values,
      ],
    ),
  );
  const done = new Set(moved.map((one) => one.key));
  const events = checked.flatMap(({ task, checks }) => [
    ...checks.map((check) => checkedEvent(task, check)),
    ...(done.has(task.key) ? [doneEvent(task)] : []),
  ]);
  return { done, events };
}

export async function markDone(db: PgDb, task: TaskRow, now: number): Promise<TaskEvent[]> {
  return (await moveBy(db.pool, task.key, doneOf(now), now)) ? [doneEvent(task)] : [];
}
