import type { OutputLink, PollOutcome, Receipt } from "../port.js";
import type { TaskRow } from "../rows.js";
import { RUNNING_STATES, TaskState } from "../states.js";
import type { TaskEvent } from "../task-events.js";
import type { SqliteDb } from "./db.js";
import { move, named } from "./tasks.js";

/** The named transitions of a task from claim to completion, and the ways back and out. */

const { Pending, Submitting, Processing, Completed, Downloaded, Done } = TaskState;

export function claimForSubmit(
  s: SqliteDb,
  tasks: readonly TaskRow[],
  owner: string,
  now: number,
): { claimed: TaskRow[]; events: TaskEvent[] } {
  const claimed: TaskRow[] = [];
  const events: TaskEvent[] = [];
  s.transaction(() => {
    for (const task of tasks) {
      const attempts = task.attempts + 1;
      if (!move(s, task.key, [Pending], Submitting, { claimed_by: owner, attempts }, now)) continue;
      claimed.push({ ...task, state: Submitting, claimed_by: owner, attempts });
      events.push({ type: "task:submitting", ...named(task) });
    }
  });
  return { claimed, events };
}

export function recordReceipts(
  s: SqliteDb,
  receipts: readonly Receipt[],
  now: number,
): { events: TaskEvent[]; duplicates: Map<string, string> } {
  const events: TaskEvent[] = [];
  const duplicates = new Map<string, string>();
  const holder = s.sql("SELECT label FROM jobs WHERE task_id = ? AND key <> ? LIMIT 1");
  s.transaction(() => {
    for (const receipt of receipts) {
      const held = holder.get(receipt.taskId, receipt.task.key) as { label: string } | undefined;
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
      if (move(s, receipt.task.key, [Submitting], receipt.status, patch, now))
        events.push({
          type: "task:submitted",
          ...named(receipt.task),
          taskId: receipt.taskId,
          firstPollInMs: Math.max(0, receipt.nextPollAt - now),
        });
    }
  });
  return { events, duplicates };
}

export function releaseClaim(
  s: SqliteDb,
  task: TaskRow,
  release: { reason?: string | null; unknownSubmits: number },
  now: number,
): boolean {
  const patch = {
    claimed_by: null,
    unknown_submits: task.unknown_submits + release.unknownSubmits,
    ...(release.reason === undefined ? {} : { reason: release.reason }),
  };
  return move(s, task.key, [Submitting], Pending, patch, now);
}

export function recordPollRound(
  s: SqliteDb,
  round: readonly { task: TaskRow; outcome: PollOutcome }[],
  now: number,
): { events: TaskEvent[]; lost: Set<string> } {
  const events: TaskEvent[] = [];
  const lost = new Set<string>();
  const note = s.sql(
    "UPDATE jobs SET progress = ?, polls = ?, next_poll_at = ? WHERE key = ? AND state IN ('submitted', 'processing')",
  );
  s.transaction(() => {
    for (const { task, outcome } of round) {
      const polls = task.polls + 1;
      let moved: boolean;
      switch (outcome.kind) {
        case "running": {
          const { progress, nextPollAt } = outcome;
          moved =
            outcome.status === Processing && task.state !== Processing
              ? move(
                  s,
                  task.key,
                  [TaskState.Submitted],
                  Processing,
                  { started_at: now, progress, polls, next_poll_at: nextPollAt },
                  now,
                )
              : note.run(progress, polls, nextPollAt, task.key).changes === 1;
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
          moved = move(s, task.key, RUNNING_STATES, Completed, patch, now);
          if (moved) {
            insertOutputs(s, task.key, outcome.links);
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
          const failed = failTask(s, task, RUNNING_STATES, outcome.to, outcome.reason, now);
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
  });
  return { events, lost };
}

/** Records a completed task's output links (kept when already recorded). */
export function insertOutputs(s: SqliteDb, key: string, links: readonly OutputLink[]): void {
  const insert = s.sql(
    "INSERT OR IGNORE INTO outputs (job_key, idx, url, expires_at, state) VALUES (?, ?, ?, ?, 'pending')",
  );
  links.forEach((link, idx) => {
    insert.run(key, idx, link.url, link.expiresAt);
  });
}

export function requeue(
  s: SqliteDb,
  task: TaskRow,
  from: readonly TaskState[],
  reason: string | null,
  now: number,
): boolean {
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
  return s.transaction(() => {
    if (!move(s, task.key, from, Pending, patch, now)) return false;
    s.sql("DELETE FROM outputs WHERE job_key = ?").run(task.key);
    return true;
  });
}

/** Its deadline counts from now: `submitted_at` is when polling (re)started. */
export function repoll(s: SqliteDb, task: TaskRow, now: number): boolean {
  const to = task.started_at === null ? TaskState.Submitted : Processing;
  const patch = { reason: null, next_poll_at: now, submitted_at: now };
  return move(s, task.key, [TaskState.Failed], to, patch, now);
}

export function redownload(s: SqliteDb, task: TaskRow, now: number): boolean {
  return s.transaction(() => {
    if (!move(s, task.key, [Done], Completed, { done_at: null }, now)) return false;
    s.sql(
      "UPDATE outputs SET state = 'pending', path = NULL, sha256 = NULL, bytes = NULL WHERE job_key = ?",
    ).run(task.key);
    return true;
  });
}

export function recheck(s: SqliteDb, task: TaskRow, now: number): boolean {
  return move(s, task.key, [Done], Downloaded, { done_at: null }, now);
}

export function failTask(
  s: SqliteDb,
  task: TaskRow,
  from: readonly TaskState[],
  to: "failed" | "rejected" | "expired" | "held",
  reason: string,
  now: number,
  expiredOutput?: number,
): TaskEvent[] {
  return s.transaction(() => {
    if (!move(s, task.key, from, to, { reason, claimed_by: null, next_poll_at: null }, now))
      return [];
    if (expiredOutput !== undefined)
      s.sql("UPDATE outputs SET state = 'expired', reason = ? WHERE job_key = ? AND idx = ?").run(
        reason,
        task.key,
        expiredOutput,
      );
    return [{ type: "task:failed", ...named(task), state: to, reason }];
  });
}
