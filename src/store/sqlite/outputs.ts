import type { TaskRow, TextAnswerRow } from "../rows.js";
import { checkedEvent, doneEvent, downloadedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { DownloadedFile, OutputCheck, OutputLink } from "../transition-inputs.js";
import { ALL_DOWNLOADED, checkColumnsOf, doneOf, textAnsweredOf } from "../transition-patches.js";
import type { SqliteDb } from "./db.js";
import { moveBy } from "./tasks.js";
import { insertOutputs } from "./transitions.js";

/** A task's outputs from download to checks: files recorded, answers kept, checks and done. */

export function updateLinks(s: SqliteDb, key: string, links: readonly OutputLink[]): void {
  const update = s.sql("UPDATE outputs SET url = ?, expires_at = ? WHERE job_key = ? AND idx = ?");
  s.transaction(() => {
    links.forEach((link, idx) => {
      update.run(link.url, link.expiresAt, key, idx);
    });
  });
}

export function recordDownloads(
  s: SqliteDb,
  files: readonly DownloadedFile[],
  now: number,
): { events: TaskEvent[]; complete: Set<string> } {
  const events: TaskEvent[] = [];
  const complete = new Set<string>();
  const mark = s.sql(
    `UPDATE outputs SET state = 'downloaded', path = ?, bytes = ?, sha256 = ?, content_type = ?,
       downloaded_at = ?
     WHERE job_key = ? AND idx = ? AND state = 'pending'`,
  );
  const waiting = s
    .sql("SELECT count(*) FROM outputs WHERE job_key = ? AND state <> 'downloaded'")
    .pluck();
  s.transaction(() => {
    for (const file of files) {
      const { task } = file;
      if (
        mark.run(
          file.path,
          file.bytes,
          file.sha256,
          file.contentType,
          file.downloadedAt ?? now,
          task.key,
          file.idx,
        ).changes === 0
      )
        continue;
      events.push(downloadedEvent(task, file));
      // The last file and the task's move commit together.
      if ((waiting.get(task.key) as number) === 0 && moveBy(s, task.key, ALL_DOWNLOADED, now))
        complete.add(task.key);
    }
  });
  return { events, complete };
}

export function recordTextAnswer(
  s: SqliteDb,
  task: TaskRow,
  answer: Omit<TextAnswerRow, "job_key" | "answered_at">,
  files: readonly Omit<DownloadedFile, "task" | "idx">[],
  now: number,
): { moved: boolean; events: TaskEvent[] } {
  const mark = s.sql(
    `UPDATE outputs SET state = 'downloaded', path = ?, bytes = ?, sha256 = ?, content_type = ?,
       downloaded_at = ?
     WHERE job_key = ? AND idx = ?`,
  );
  return s.transaction(() => {
    if (!moveBy(s, task.key, textAnsweredOf(task, now), now)) return { moved: false, events: [] };
    s.sql("DELETE FROM outputs WHERE job_key = ?").run(task.key);
    insertOutputs(
      s,
      task.key,
      files.map(() => ({ url: null, expiresAt: null })),
    );
    files.forEach((file, idx) => {
      mark.run(file.path, file.bytes, file.sha256, file.contentType, now, task.key, idx);
    });
    s.sql(
      `INSERT OR REPLACE INTO text_answers
         (job_key, format, model, text, choices, finish_reason, usage, tool_calls, refusal, streamed, answered_at)
       VALUES (@job_key, @format, @model, @text, @choices, @finish_reason, @usage, @tool_calls, @refusal, @streamed, @answered_at)`,
    ).run({ ...answer, job_key: task.key, answered_at: now });
    return { moved: true, events: files.map((file) => downloadedEvent(task, file)) };
  });
}

export function recordChecks(
  s: SqliteDb,
  checked: readonly { task: TaskRow; checks: readonly OutputCheck[] }[],
  now: number,
): { done: Set<string>; events: TaskEvent[] } {
  const done = new Set<string>();
  const events: TaskEvent[] = [];
  s.transaction(() => {
    for (const { task, checks } of checked) {
      events.push(...keepChecks(s, task, checks));
      if (checks.some((check) => !check.ok)) continue;
      const moved = markDone(s, task, now);
      events.push(...moved);
      if (moved.length > 0) done.add(task.key);
    }
  });
  return { done, events };
}

function keepChecks(s: SqliteDb, task: TaskRow, checks: readonly OutputCheck[]): TaskEvent[] {
  const keep = s.sql(
    "UPDATE outputs SET check_state = ?, checks = ?, thumbnail = ?, poster = ? WHERE job_key = ? AND idx = ?",
  );
  const events: TaskEvent[] = [];
  for (const check of checks) {
    const { checkState, checks: measured } = checkColumnsOf(check);
    keep.run(checkState, measured, check.thumbnail, check.poster, task.key, check.index);
    events.push(checkedEvent(task, check));
  }
  return events;
}

export function markDone(s: SqliteDb, task: TaskRow, now: number): TaskEvent[] {
  return moveBy(s, task.key, doneOf(now), now) ? [doneEvent(task)] : [];
}
