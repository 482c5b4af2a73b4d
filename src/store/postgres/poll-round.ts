import type { TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import type { TaskEvent } from "../task-events.js";
import type { PollOutcome } from "../transition-inputs.js";
import * as patches from "../transition-patches.js";
import { type PgDb, rows, type Sql } from "./db.js";
import { insertOutputs } from "./outputs.js";
import { lockTasks, moveMany } from "./tasks.js";
import { failIn } from "./transitions.js";

/**
 * One poll round in one transaction and a handful of statements, whatever its size: the poll
 * leader records every round of the fleet, so its round trips bound the fleet's pace.
 */
export function recordPollRound(
  db: PgDb,
  round: readonly { task: TaskRow; outcome: PollOutcome }[],
  now: number,
): Promise<{ events: TaskEvent[]; lost: Set<string> }> {
  return db.transaction(async (sql) => {
    await lockTasks(
      sql,
      round.map((entry) => entry.task.key),
    );
    const steps = round.map(({ task, outcome }) => ({
      task,
      step: patches.pollStepOf(task, outcome, now),
    }));
    const moves = steps.flatMap(({ task, step }) =>
      step.kind === "move" ? [{ key: task.key, transition: step.move, links: step.links }] : [],
    );
    const moved = await moveMany(sql, moves, now);
    const noted = await noteProgress(
      sql,
      steps.flatMap(({ task, step }) => (step.kind === "note" ? [{ key: task.key, ...step }] : [])),
    );
    await insertOutputs(
      sql,
      moves.flatMap(({ key, links }) => (links !== null && moved.has(key) ? [{ key, links }] : [])),
    );
    const events: TaskEvent[] = [];
    const lost = new Set<string>();
    const toDownload: string[] = [];
    for (const { task, step } of steps) {
      if (step.kind === "fail") {
        const failed = await failIn(sql, task, step.from, step.to, step.reason, now);
        if (failed.length === 0) lost.add(task.key);
        events.push(...failed);
        continue;
      }
      if (!(step.kind === "move" ? moved : noted).has(task.key)) {
        lost.add(task.key);
        continue;
      }
      events.push(...step.events);
      if (step.kind === "move" && DOWNLOADS_WAIT.includes(step.move.to)) toDownload.push(task.key);
    }
    await queueDownloads(sql, toDownload);
    return { events, lost };
  });
}

/** Running tasks' progress and next poll, in one statement: the keys of those still running. */
async function noteProgress(
  sql: Sql,
  notes: readonly { key: string; progress: number; polls: number; nextPollAt: number }[],
): Promise<Set<string>> {
  if (notes.length === 0) return new Set();
  const given = notes.map(({ key, progress, polls, nextPollAt }) => ({
    key,
    progress,
    polls,
    next_poll_at: nextPollAt,
  }));
  const noted = await rows<{ key: string }>(
    sql,
    `UPDATE jobs j SET progress = g.progress, polls = g.polls, next_poll_at = g.next_poll_at
     FROM jsonb_populate_recordset(NULL::jobs, $1::jsonb) g
     WHERE j.key = g.key AND j.state IN ('submitted', 'processing')
     RETURNING j.key`,
    [JSON.stringify(given)],
  );
  return new Set(noted.map((one) => one.key));
}

/** States whose outputs wait for a download job. */
const DOWNLOADS_WAIT: readonly TaskState[] = [TaskState.Completed, TaskState.Downloaded];

/**
 * The download jobs of the tasks this transaction completed, in one call (sql/pg/000011); the
 * row trigger leaves this transaction's completions to it.
 */
async function queueDownloads(sql: Sql, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql.query(
    "SELECT set_config('gwrun.downloads_queued', 'yes', true), gwrun_queue_downloads($1::text[])",
    [[...keys]],
  );
}
