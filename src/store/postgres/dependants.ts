import type { NewTask, TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { addedEvent, failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { RecordedDependant } from "../transition-inputs.js";
import { skipOf, skippedKeysOf, UNSKIP } from "../transition-patches.js";
import { changes, type PgDb, rows, type Sql, TASK_COLUMNS } from "./db.js";
import { moveBy, task as readTask, recordTasks } from "./tasks.js";

/** Pipelines in the store, as `../sqlite/dependants.ts` records them. */

const { Pending, Skipped } = TaskState;

export function recordDependants(
  db: PgDb,
  runId: number,
  upstream: TaskRow,
  dependants: readonly { task: NewTask; problem: string | null }[],
  now: number,
): Promise<{ dependants: RecordedDependant[]; events: TaskEvent[] }> {
  return db.transaction(async (sql) => {
    await dropStandIns(sql, upstream.key);
    const fresh = await recordTasks(
      sql,
      runId,
      dependants.map((entry) => entry.task),
      now,
    );
    const recorded: RecordedDependant[] = [];
    const events: TaskEvent[] = [];
    for (const { task, problem } of dependants) {
      let row = await readTask(sql, task.key);
      if (row === undefined) continue;
      // Skipped when the upstream failed once; it has its input now.
      if (row.state === Skipped && (await moveBy(sql, row.key, UNSKIP, now)))
        row = { ...row, state: Pending, reason: null };
      // A link bound earlier may have expired since.
      if (
        problem === null &&
        row.state === Pending &&
        (await changes(
          sql,
          "UPDATE jobs SET request = $1 WHERE key = $2 AND state = 'pending' AND placeholder = 0 AND request <> $1",
          [task.request, row.key],
        )) === 1
      )
        row = { ...row, request: task.request };
      const isFresh = fresh.has(task.key);
      recorded.push({ task: row, fresh: isFresh, problem });
      if (isFresh) events.push(addedEvent(row, upstream));
    }
    return { dependants: recorded, events };
  });
}

export async function recordSkipped(
  db: PgDb,
  runId: number,
  upstream: TaskRow,
  standIns: readonly NewTask[],
  reason: string,
  now: number,
): Promise<TaskEvent[]> {
  if (standIns.length === 0) return [];
  const skip = skipOf(upstream, reason);
  return db.transaction(async (sql) => {
    const fresh = await recordTasks(sql, runId, standIns, now);
    const events: TaskEvent[] = [];
    // Real dependants of an earlier success of it, not sent yet, cannot be sent now either.
    const recorded = await rows<TaskRow>(
      sql,
      `SELECT ${TASK_COLUMNS} FROM jobs WHERE upstream_key = $1 ORDER BY place`,
      [upstream.key],
    );
    for (const key of skippedKeysOf(recorded, standIns)) {
      if (!(await moveBy(sql, key, skip, now))) continue;
      const row = await readTask(sql, key);
      if (row === undefined) continue;
      if (fresh.has(key)) events.push(addedEvent(row, upstream));
      events.push(failedEvent(row, Skipped, skip.reason));
    }
    return events;
  });
}

/**
 * Forgets the stand-ins of an upstream whose real outputs now exist (it was retried), and
 * theirs further down a chain; only those not moved on.
 */
async function dropStandIns(sql: Sql, upstreamKey: string): Promise<void> {
  const queue = [upstreamKey];
  for (let upstream = queue.pop(); upstream !== undefined; upstream = queue.pop()) {
    const below = await rows<{ key: string }>(
      sql,
      "SELECT key FROM jobs WHERE upstream_key = $1 AND placeholder = 1 AND state IN ('pending', 'skipped')",
      [upstream],
    );
    for (const { key } of below) {
      queue.push(key);
      await sql.query("DELETE FROM run_jobs WHERE key = $1", [key]);
      await sql.query("DELETE FROM jobs WHERE key = $1", [key]);
    }
  }
}
