import type { NewTask, TaskRow } from "../rows.js";
import { TaskState } from "../states.js";
import { addedEvent, failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { RecordedDependant } from "../transition-inputs.js";
import { skipOf, skippedKeysOf, UNSKIP } from "../transition-patches.js";
import type { SqliteDb } from "./db.js";
import { dependantsOf, moveBy, task as readTask, recordTasks } from "./tasks.js";

/** Pipelines in the store: an upstream's dependants, and the stand-ins of a failed one. */

const { Pending, Skipped } = TaskState;

export function recordDependants(
  s: SqliteDb,
  runId: number,
  upstream: TaskRow,
  dependants: readonly { task: NewTask; problem: string | null }[],
  now: number,
): { dependants: RecordedDependant[]; events: TaskEvent[] } {
  const rebind = s.sql(
    "UPDATE jobs SET request = ? WHERE key = ? AND state = 'pending' AND placeholder = 0 AND request <> ?",
  );
  return s.transaction(() => {
    dropStandIns(s, upstream.key);
    const fresh = recordTasks(
      s,
      runId,
      dependants.map((entry) => entry.task),
      now,
    );
    const recorded: RecordedDependant[] = [];
    const events: TaskEvent[] = [];
    for (const { task, problem } of dependants) {
      let row = readTask(s, task.key);
      if (row === undefined) continue;
      // Skipped when the upstream failed once; it has its input now.
      if (row.state === Skipped && moveBy(s, row.key, UNSKIP, now))
        row = { ...row, state: Pending, reason: null };
      // A link bound earlier may have expired since.
      if (
        problem === null &&
        row.state === Pending &&
        rebind.run(task.request, row.key, task.request).changes === 1
      )
        row = { ...row, request: task.request };
      const isFresh = fresh.has(task.key);
      recorded.push({ task: row, fresh: isFresh, problem });
      if (isFresh) events.push(addedEvent(row, upstream));
    }
    return { dependants: recorded, events };
  });
}

export function recordSkipped(
  s: SqliteDb,
  runId: number,
  upstream: TaskRow,
  standIns: readonly NewTask[],
  reason: string,
  now: number,
): TaskEvent[] {
  if (standIns.length === 0) return [];
  const skip = skipOf(upstream, reason);
  return s.transaction(() => {
    const fresh = recordTasks(s, runId, standIns, now);
    const events: TaskEvent[] = [];
    // Real dependants of an earlier success of it, not sent yet, cannot be sent now either.
    for (const key of skippedKeysOf(dependantsOf(s, upstream.key), standIns)) {
      if (!moveBy(s, key, skip, now)) continue;
      const row = readTask(s, key);
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
function dropStandIns(s: SqliteDb, upstreamKey: string): void {
  const below = s.sql(
    "SELECT key FROM jobs WHERE upstream_key = ? AND placeholder = 1 AND state IN ('pending', 'skipped')",
  );
  const unlink = s.sql("DELETE FROM run_jobs WHERE key = ?");
  const remove = s.sql("DELETE FROM jobs WHERE key = ?");
  const queue = [upstreamKey];
  for (let upstream = queue.pop(); upstream !== undefined; upstream = queue.pop()) {
    for (const { key } of below.all(upstream) as { key: string }[]) {
      queue.push(key);
      unlink.run(key);
      remove.run(key);
    }
  }
}
