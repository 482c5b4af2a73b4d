import { type ArgsOf, batch, changes, move, perTask, transaction, write } from "../program.js";
import type { OutputCopy, TaskRow } from "../rows.js";
import { checkedEvent, doneEvent, downloadedEvent } from "../task-event-of.js";
import type { DownloadedFile, OutputLink } from "../transition-inputs.js";
import { ALL_DOWNLOADED, checkColumnsOf, doneOf, textAnsweredOf } from "../transition-patches.js";

/** A task's outputs from their links to their checks: files recorded, answers kept, done. */

export const outputTransitions = {
  updateLinks: write(function* (key: string, links: readonly OutputLink[]) {
    if (links.length > 0) yield* batch("links", { key, links });
  }),
  recordCopies: write(function* (copies: readonly OutputCopy[]) {
    if (copies.length > 0) yield* batch("copies", { copies });
  }),
  /** The last file of a task on disk and its move completed → downloaded commit together. */
  recordDownloads: perTask(
    write(function* (files: readonly DownloadedFile[], now: number) {
      if (files.length === 0) return { events: [], complete: new Set<string>() };
      const { marked, moved } = yield* batch("markDownloads", { files, move: ALL_DOWNLOADED, now });
      return {
        events: files.filter((_, i) => marked[i]).map((file) => downloadedEvent(file.task, file)),
        complete: moved,
      };
    }),
  ),
  recordTextAnswer: transaction(function* (
    ...[task, answer, files, now]: ArgsOf<"recordTextAnswer">
  ) {
    if (!(yield* move(task.key, textAnsweredOf(task, now), now)))
      return { moved: false, events: [] };
    yield* changes("DELETE FROM outputs WHERE job_key = ?", [task.key]);
    const links = files.map(() => ({ url: null, expiresAt: null }));
    yield* batch("insertOutputs", { outputs: [{ key: task.key, links }] });
    for (const [idx, file] of files.entries())
      yield* changes(
        `UPDATE outputs SET state = 'downloaded', path = ?, bytes = ?, sha256 = ?, content_type = ?,
           downloaded_at = ?
         WHERE job_key = ? AND idx = ?`,
        [file.path, file.bytes, file.sha256, file.contentType, now, task.key, idx],
      );
    yield* changes(
      `INSERT INTO text_answers (job_key, format, model, text, choices, finish_reason, usage,
         tool_calls, refusal, streamed, answered_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
  }),
  /** Keeps each output's checks; a task whose every check passed moves downloaded → done. */
  recordChecks: perTask(
    write(function* (...[checked, now]: ArgsOf<"recordChecks">) {
      if (checked.length === 0) return { done: new Set<string>(), events: [] };
      const done = yield* batch("keepChecks", {
        kept: checked.flatMap(({ task, checks }) =>
          checks.map((check) => ({
            key: task.key,
            idx: check.index,
            ...checkColumnsOf(check),
            thumbnail: check.thumbnail,
            poster: check.poster,
          })),
        ),
        passed: checked.flatMap(({ task, checks }) =>
          checks.every((check) => check.ok) ? [task.key] : [],
        ),
        move: doneOf(now),
        now,
      });
      const events = checked.flatMap(({ task, checks }) => [
        ...checks.map((check) => checkedEvent(task, check)),
        ...(done.has(task.key) ? [doneEvent(task)] : []),
      ]);
      return { done, events };
    }),
  ),
  markDone: perTask(
    write(function* (task: TaskRow, now: number) {
      return (yield* move(task.key, doneOf(now), now)) ? [doneEvent(task)] : [];
    }),
  ),
};
