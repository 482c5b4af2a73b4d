import type { OutputLink, PollOutcome, Receipt } from "../port.js";
import type { TaskRow } from "../rows.js";
import { RUNNING_STATES, TaskState } from "../states.js";
import type { TaskEvent } from "../task-events.js";
import { changes, type PgDb, row, type Sql } from "./db.js";
import { lockTasks, move, named } from "./tasks.js";

/**
 * The named transitions of a task from claim to completion, and the ways back and out: the
 * SQLite adapter's (`../sqlite/transitions.ts`), each in one short transaction.
 */

const { Pending, Submitting, Processing, Completed, Downloaded, Done } = TaskState;

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
      const attempts = task.attempts + 1;
      const patch = { claimed_by: owner, attempts };
      if (!(await move(sql, task.key, [Pending], Submitting, patch, now))) continue;
      claimed.push({ ...task, state: Submitting, claimed_by: owner, attempts });
      events.push({ type: "task:submitting", ...named(task) });
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
      const patch = {
        task_id: receipt.taskId,
        submitted_at: now,
        next_poll_at: receipt.nextPollAt,
        claimed_by: null,
        unknown_submits: receipt.task.unknown_submits + receipt.unknownSubmits,
      };
      if (await move(sql, receipt.task.key, [Submitting], receipt.status, patch, now))
        events.push({
          type: "task:submitted",
          ...named(receipt.task),
          taskId: receipt.taskId,
          firstPollInMs: Math.max(0, receipt.nextPollAt - now),
        });
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
  const patch = {
    claimed_by: null,
    unknown_submits: task.unknown_submits + release.unknownSubmits,
    ...(release.reason === undefined ? {} : { reason: release.reason }),
  };
  return move(db.pool, task.key, [Submitting], Pending, patch, now);
}

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
    const events: TaskEvent[] = [];
    const lost = new Set<string>();
    for (const { task, outcome } of round) {
      const polls = task.polls + 1;
      let moved: boolean;
      switch (outcome.kind) {
        case "running": {
          const { progress, nextPollAt } = outcome;
          moved =
            outcome.status === Processing && task.state !== Processing
              ? await move(
                  sql,
                  task.key,
                  [TaskState.Submitted],
                  Processing,
                  { started_at: now, progress, polls, next_poll_at: nextPollAt },
                  now,
                )
              : (await changes(
                  sql,
                  "UPDATE jobs SET progress = $1, polls = $2, next_poll_at = $3 WHERE key = $4 AND state IN ('submitted', 'processing')",
                  [progress, polls, nextPollAt, task.key],
                )) === 1;
          if (moved && progress !== task.progress)
            events.push({ type: "task:progress", ...named(task), progress });
          break;
        }
        case "completed": {
          const patch = {
            cost: outcome.cost,
            completed_at: now,
            progress: 100,
            polls,
            next_poll_at: null,
          };
          moved = await move(sql, task.key, RUNNING_STATES, Completed, patch, now);
          if (moved) {
            await insertOutputs(sql, task.key, outcome.links);
            events.push({
              type: "task:completed",
              ...named(task),
              cost: outcome.cost,
              outputs: outcome.links.length,
              ...(outcome.surplus === undefined ? {} : { surplus: outcome.surplus }),
            });
          }
          break;
        }
        case "failed": {
          const failed = await failIn(sql, task, RUNNING_STATES, outcome.to, outcome.reason, now);
          events.push(...failed);
          moved = failed.length > 0;
          break;
        }
        default: {
          const never: never = outcome;
          throw new Error(`unknown poll outcome ${JSON.stringify(never)}`);
        }
      }
      if (!moved) lost.add(task.key);
    }
    return { events, lost };
  });
}

/** Records a completed task's output links (kept when already recorded). */
export async function insertOutputs(
  sql: Sql,
  key: string,
  links: readonly OutputLink[],
): Promise<void> {
  if (links.length === 0) return;
  await sql.query(
    `INSERT INTO outputs (job_key, idx, url, expires_at, state)
     SELECT $1, t.n - 1, t.url, t.expires_at, 'pending'
     FROM unnest($2::text[], $3::bigint[]) WITH ORDINALITY AS t(url, expires_at, n)
     ON CONFLICT DO NOTHING`,
    [key, links.map((link) => link.url), links.map((link) => link.expiresAt)],
  );
}

export function requeue(
  db: PgDb,
  task: TaskRow,
  from: readonly TaskState[],
  reason: string | null,
  now: number,
): Promise<boolean> {
  const patch = {
    task_id: null,
    claimed_by: null,
    cost: null,
    progress: null,
    next_poll_at: null,
    completed_at: null,
    done_at: null,
    reason,
  };
  return db.transaction(async (sql) => {
    if (!(await move(sql, task.key, from, Pending, patch, now))) return false;
    await sql.query("DELETE FROM outputs WHERE job_key = $1", [task.key]);
    return true;
  });
}

/** Its deadline counts from now: `submitted_at` is when polling (re)started. */
export function repoll(db: PgDb, task: TaskRow, now: number): Promise<boolean> {
  const to = task.started_at === null ? TaskState.Submitted : Processing;
  const patch = { reason: null, next_poll_at: now, submitted_at: now };
  return move(db.pool, task.key, [TaskState.Failed], to, patch, now);
}

export function redownload(db: PgDb, task: TaskRow, now: number): Promise<boolean> {
  return db.transaction(async (sql) => {
    if (!(await move(sql, task.key, [Done], Completed, { done_at: null }, now))) return false;
    await sql.query(
      "UPDATE outputs SET state = 'pending', path = NULL, sha256 = NULL, bytes = NULL WHERE job_key = $1",
      [task.key],
    );
    return true;
  });
}

export function recheck(db: PgDb, task: TaskRow, now: number): Promise<boolean> {
  return move(db.pool, task.key, [Done], Downloaded, { done_at: null }, now);
}

export function failTask(
  db: PgDb,
  task: TaskRow,
  from: readonly TaskState[],
  to: "failed" | "rejected" | "expired" | "held",
  reason: string,
  now: number,
  expiredOutput?: number,
): Promise<TaskEvent[]> {
  return db.transaction((sql) => failIn(sql, task, from, to, reason, now, expiredOutput));
}

async function failIn(
  sql: Sql,
  task: TaskRow,
  from: readonly TaskState[],
  to: "failed" | "rejected" | "expired" | "held",
  reason: string,
  now: number,
  expiredOutput?: number,
): Promise<TaskEvent[]> {
  const patch = { reason, claimed_by: null, next_poll_at: null };
  if (!(await move(sql, task.key, from, to, patch, now))) return [];
  if (expiredOutput !== undefined)
    await sql.query(
      "UPDATE outputs SET state = 'expired', reason = $1 WHERE job_key = $2 AND idx = $3",
      [reason, task.key, expiredOutput],
    );
  return [{ type: "task:failed", ...named(task), state: to, reason }];
}
