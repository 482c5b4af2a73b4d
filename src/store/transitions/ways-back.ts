import { type ArgsOf, changes, move, type Program, transaction, write } from "../program.js";
import type { TaskRow } from "../rows.js";
import { failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import { failOf, RECHECK, REDOWNLOAD, repollOf, requeueOf } from "../transition-patches.js";

/** The ways back (requeue, repoll, redownload, recheck) and out (fail) of a task. */

function* failTask(
  ...[task, from, to, reason, now, detail = {}]: ArgsOf<"failTask">
): Program<TaskEvent[]> {
  const { expiredOutput, unknownSubmits = 0 } = detail;
  if (!(yield* move(task.key, failOf(from, to, reason, { task, unknownSubmits }), now))) return [];
  if (expiredOutput !== undefined)
    yield* changes(
      "UPDATE outputs SET state = 'expired', reason = ? WHERE job_key = ? AND idx = ?",
      [reason, task.key, expiredOutput],
    );
  return [failedEvent(task, to, reason)];
}

export const waysBack = {
  requeue: transaction(function* (...[task, from, reason, now]: ArgsOf<"requeue">) {
    if (!(yield* move(task.key, requeueOf(from, reason), now))) return false;
    yield* changes("DELETE FROM output_copies WHERE job_key = ?", [task.key]);
    yield* changes("DELETE FROM outputs WHERE job_key = ?", [task.key]);
    return true;
  }),
  repoll: write(function* (task: TaskRow, now: number) {
    return yield* move(task.key, repollOf(task, now), now);
  }),
  redownload: transaction(function* (task: TaskRow, now: number) {
    if (!(yield* move(task.key, REDOWNLOAD, now))) return false;
    yield* changes(
      "UPDATE outputs SET state = 'pending', path = NULL, sha256 = NULL, bytes = NULL WHERE job_key = ?",
      [task.key],
    );
    return true;
  }),
  recheck: write(function* (task: TaskRow, now: number) {
    return yield* move(task.key, RECHECK, now);
  }),
  failTask: transaction(failTask),
};
