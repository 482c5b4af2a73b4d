import type { DownloadedFile, OutputCheck, OutputLink } from "../port.js";
import type { TaskRow, TextAnswerRow } from "../rows.js";
import { checkedEvent, doneEvent, downloadedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import { ALL_DOWNLOADED, checkColumnsOf, doneOf, textAnsweredOf } from "../transition-patches.js";
import { changes, type PgDb, row, type Sql } from "./db.js";
import { lockTasks, moveBy } from "./tasks.js";

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

export function recordDownloads(
  db: PgDb,
  files: readonly DownloadedFile[],
  now: number,
): Promise<{ events: TaskEvent[]; complete: Set<string> }> {
  return db.transaction(async (sql) => {
    await lockTasks(
      sql,
      files.map((file) => file.task.key),
    );
    const events: TaskEvent[] = [];
    const complete = new Set<string>();
    for (const file of files) {
      const { task } = file;
      const marked = await changes(
        sql,
        `UPDATE outputs SET state = 'downloaded', path = $1, bytes = $2, sha256 = $3, content_type = $4
         WHERE job_key = $5 AND idx = $6 AND state = 'pending'`,
        [file.path, file.bytes, file.sha256, file.contentType, task.key, file.idx],
      );
      if (marked === 0) continue;
      events.push(downloadedEvent(task, file));
      const waiting = await row<{ n: number }>(
        sql,
        "SELECT count(*) AS n FROM outputs WHERE job_key = $1 AND state <> 'downloaded'",
        [task.key],
      );
      // The last file and the task's move commit together.
      if (waiting?.n === 0 && (await moveBy(sql, task.key, ALL_DOWNLOADED, now)))
        complete.add(task.key);
    }
    return { events, complete };
  });
}

export function recordTextAnswer(
  db: PgDb,
  task: TaskRow,
  answer: Omit<TextAnswerRow, "job_key" | "answered_at">,
  files: readonly Omit<DownloadedFile, "task" | "idx">[],
  now: number,
): Promise<{ moved: boolean; events: TaskEvent[] }> {
  return db.transaction(async (sql) => {
    if (!(await moveBy(sql, task.key, textAnsweredOf(now), now)))
      return { moved: false, events: [] };
    await sql.query("DELETE FROM outputs WHERE job_key = $1", [task.key]);
    await insertOutputs(sql, [
      { key: task.key, links: files.map(() => ({ url: null, expiresAt: null })) },
    ]);
    for (const [idx, file] of files.entries())
      await sql.query(
        `UPDATE outputs SET state = 'downloaded', path = $1, bytes = $2, sha256 = $3, content_type = $4
         WHERE job_key = $5 AND idx = $6`,
        [file.path, file.bytes, file.sha256, file.contentType, task.key, idx],
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

export function recordChecks(
  db: PgDb,
  checked: readonly { task: TaskRow; checks: readonly OutputCheck[] }[],
  now: number,
): Promise<{ done: Set<string>; events: TaskEvent[] }> {
  return db.transaction(async (sql) => {
    await lockTasks(
      sql,
      checked.map((entry) => entry.task.key),
    );
    const done = new Set<string>();
    const events: TaskEvent[] = [];
    for (const { task, checks } of checked) {
      events.push(...(await keepChecks(sql, task, checks)));
      if (checks.some((check) => !check.ok)) continue;
      const moved = await markDoneIn(sql, task, now);
      events.push(...moved);
      if (moved.length > 0) done.add(task.key);
    }
    return { done, events };
  });
}

async function keepChecks(
  sql: Sql,
  task: TaskRow,
  checks: readonly OutputCheck[],
): Promise<TaskEvent[]> {
  const events: TaskEvent[] = [];
  for (const check of checks) {
    const { checkState, checks: measured } = checkColumnsOf(check);
    await sql.query(
      "UPDATE outputs SET check_state = $1, checks = $2, thumbnail = $3, poster = $4 WHERE job_key = $5 AND idx = $6",
      [checkState, measured, check.thumbnail, check.poster, task.key, check.index],
    );
    events.push(checkedEvent(task, check));
  }
  return events;
}

export function markDone(db: PgDb, task: TaskRow, now: number): Promise<TaskEvent[]> {
  return markDoneIn(db.pool, task, now);
}

async function markDoneIn(sql: Sql, task: TaskRow, now: number): Promise<TaskEvent[]> {
  return (await moveBy(sql, task.key, doneOf(now), now)) ? [doneEvent(task)] : [];
}
