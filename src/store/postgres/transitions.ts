import type { TaskRow } from "../rows.js";
import type { TaskState } from "../states.js";
import { failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { Receipt } from "../transition-inputs.js";
import type { FailState } from "../transition-patches.js";
import * as patches from "../transition-patches.js";
import { type PgDb, row, type Sql } from "./db.js";
import { lockTasks, moveBy } from "./tasks.js";

/**
 * The named transitions of a task from claim to completion, and the ways back and out, each in
 * one short transaction; what each sets is `../transition-patches.ts`, here only the SQL.
 */

export function claimForSubmit(
  db: PgDb,
  tasks: readonly TaskRow[],
  owner: string,
  now: number,
): Promise<{ claimed: TaskRow[]; events: TaskEvent[] }> {
  return db.transaction(async (sql) => {
    await lockTasks(
      sql,
      tasks.map((task) => task.key),
    );
    const claimed: TaskRow[] = [];
    const events: TaskEvent[] = [];
    for (const task of tasks) {
      const claim = patches.claimOf(task, owner);
      if (!(await moveBy(sql, task.key, claim, now))) continue;
      claimed.push(claim.claimed);
      events.push(claim.event);
    }
    return { claimed, events };
  });
}

export function recordReceipts(
  db: PgDb,
  receipts: readonly Receipt[],
  now: number,
): Promise<{ events: TaskEvent[]; duplicates: Map<string, string> }> {
  return db.transaction(async (sql) => {
    await lockTasks(
      sql,
      receipts.map((receipt) => receipt.task.key),
    );
    const events: TaskEvent[] = [];
    const duplicates = new Map<string, string>();
    for (const receipt of receipts) {
      // A task id another task holds already is refused: both must not take the one result.
      const held = await row<{ label: string }>(
        sql,
        "SELECT label FROM jobs WHERE task_id = $1 AND key <> $2 LIMIT 1",
        [receipt.taskId, receipt.task.key],
      );
      if (held !== undefined) {
        duplicates.set(receipt.task.key, held.label);
        continue;
      }
      const taken = patches.receiptOf(receipt, now);
      if (await moveBy(sql, receipt.task.key, taken, now)) events.push(taken.event);
    }
    return { events, duplicates };
  });
}

export function releaseClaim(
  db: PgDb,
  task: TaskRow,
  release: { reason?: string | null; unknownSubmits: number },
  now: number,
): Promise<boolean> {
  return moveBy(db.pool, task.key, patches.releaseOf(task, release), now);
}

export function requeue(
  db: PgDb,
  task: TaskRow,
  from: readonly TaskState[],
  reason: string | null,
  now: number,
): Promise<boolean> {
  return db.transaction(async (sql) => {
    if (!(await moveBy(sql, task.key, patches.requeueOf(from, reason), now))) return false;
    await sql.query("DELETE FROM output_copies WHERE job_key = $1", [task.key]);
    await sql.query("DELETE FROM outputs WHERE job_key = $1", [task.key]);
    return true;
  });
}

export function repoll(db: PgDb, task: TaskRow, now: number): Promise<boolean> {
  return moveBy(db.pool, task.key, patches.repollOf(task, now), now);
}

export function redownload(db: PgDb, task: TaskRow, now: number): Promise<boolean> {
  return db.transaction(async (sql) => {
    if (!(await moveBy(sql, task.key, patches.REDOWNLOAD, now))) return false;
    await sql.query(
      "UPDATE outputs SET state = 'pending', path = NULL, sha256 = NULL, bytes = NULL WHERE job_key = $1",
      [task.key],
    );
    return true;
  });
}

export function recheck(db: PgDb, task: TaskRow, now: number): Promise<boolean> {
  return moveBy(db.pool, task.key, patches.RECHECK, now);
}

/** The task, the states it may leave, its failed state, the reason, now, and an expired output. */
type FailArgs = [
  task: TaskRow,
  from: readonly TaskState[],
  to: FailState,
  reason: string,
  now: number,
  expiredOutput?: number,
];

export function failTask(db: PgDb, ...args: FailArgs): Promise<TaskEvent[]> {
  return db.transaction((sql) => failIn(sql, ...args));
}

export async function failIn(
  sql: Sql,
  ...[task, from, to, reason, now, expiredOutput]: FailArgs
): Promise<TaskEvent[]> {
  if (!(await moveBy(sql, task.key, patches.failOf(from, to, reason), now))) return [];
  if (expiredOutput !== undefined)
    await sql.query(
      "UPDATE outputs SET state = 'expired', reason = $1 WHERE job_key = $2 AND idx = $3",
      [reason, task.key, expiredOutput],
    );
  return [failedEvent(task, to, reason)];
}
