import { type ArgsOf, batch, changes, move, type Program, rows, transaction } from "../program.js";
import { dependantsOf, taskOf } from "../queries/tasks.js";
import type { NewTask } from "../rows.js";
import { TaskState } from "../states.js";
import { addedEvent, failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { RecordedDependant } from "../transition-inputs.js";
import { skipOf, skippedKeysOf, UNSKIP } from "../transition-patches.js";

/** Recording tasks: a run's, and in pipelines an upstream's dependants or stand-ins. */

const { Pending, Skipped } = TaskState;

/**
 * Forgets the stand-ins of an upstream whose real outputs now exist (it was retried), and
 * theirs further down a chain; only those not moved on.
 */
function* dropStandIns(upstreamKey: string): Program<void> {
  const queue = [upstreamKey];
  for (let upstream = queue.pop(); upstream !== undefined; upstream = queue.pop()) {
    const below = yield* rows<{ key: string }>(
      `SELECT key FROM jobs WHERE upstream_key = ? AND placeholder = 1
       AND state IN ('pending', 'skipped')`,
      [upstream],
    );
    for (const { key } of below) {
      queue.push(key);
      yield* changes("DELETE FROM run_jobs WHERE key = ?", [key]);
      yield* changes("DELETE FROM jobs WHERE key = ?", [key]);
      yield* changes("DELETE FROM task_requests WHERE key = ?", [key]);
    }
  }
}

export const recordings = {
  /** New keys are inserted pending; known keys join the run as they are. */
  recordTasks: transaction(function* (runId: number, tasks: readonly NewTask[], now: number) {
    return yield* batch("insertTasks", { runId, tasks, now });
  }),
  /** Stand-ins go, skipped dependants come back pending, pending ones are bound afresh. */
  recordDependants: transaction(function* (
    ...[runId, upstream, dependants, now]: ArgsOf<"recordDependants">
  ) {
    yield* dropStandIns(upstream.key);
    const tasks = dependants.map((entry) => entry.task);
    const fresh = yield* batch("insertTasks", { runId, tasks, now });
    const recorded: RecordedDependant[] = [];
    const events: TaskEvent[] = [];
    for (const { task, problem } of dependants) {
      let row = yield* taskOf(task.key);
      if (row === undefined) continue;
      // Skipped when the upstream failed once; it has its input now.
      if (row.state === Skipped && (yield* move(row.key, UNSKIP, now)))
        row = { ...row, state: Pending, reason: null };
      // A link bound earlier may have expired since.
      if (
        problem === null &&
        row.state === Pending &&
        (yield* changes(
          `UPDATE task_requests SET request = ? WHERE key = ? AND request <> ?
           AND EXISTS (SELECT 1 FROM jobs WHERE jobs.key = task_requests.key
                         AND jobs.state = 'pending' AND jobs.placeholder = 0)`,
          [task.request, row.key, task.request],
        )) === 1
      )
        row = { ...row, request: task.request };
      const isFresh = fresh.has(task.key);
      recorded.push({ task: row, fresh: isFresh, problem });
      if (isFresh) events.push(addedEvent(row, upstream));
    }
    return { dependants: recorded, events };
  }),
  recordSkipped: transaction(function* (
    ...[runId, upstream, standIns, reason, now]: ArgsOf<"recordSkipped">
  ) {
    if (standIns.length === 0) return [];
    const skip = skipOf(upstream, reason);
    const fresh = yield* batch("insertTasks", { runId, tasks: standIns, now });
    const events: TaskEvent[] = [];
    // Real dependants of an earlier success of it, not sent yet, cannot be sent now either.
    for (const key of skippedKeysOf(yield* dependantsOf(upstream.key), standIns)) {
      if (!(yield* move(key, skip, now))) continue;
      const row = yield* taskOf(key);
      if (row === undefined) continue;
      if (fresh.has(key)) events.push(addedEvent(row, upstream));
      events.push(failedEvent(row, Skipped, skip.reason));
    }
    return events;
  }),
};
