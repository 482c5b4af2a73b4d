import type { TaskRow } from "../rows.js";
import type { TaskState } from "../states.js";
import { failedEvent } from "../task-event-of.js";
import type { TaskEvent } from "../task-events.js";
import type { OutputLink, PollOutcome, Receipt } from "../transition-inputs.js";
import type { FailState } from "../transition-patches.js";
import * as patches from "../transition-patches.js";
import type { SqliteDb } from "./db.js";
import { moveBy } from "./tasks.js";

/**
 * The named transitions of a task from claim to completion, and the ways back and out; what
 * each sets is `../transition-patches.ts`, here only how SQLite makes it.
 */

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
      const claim = patches.claimOf(task, owner);
      if (!moveBy(s, task.key, claim, now)) continue;
      claimed.push(claim.claimed);
      events.push(claim.event);
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
      const taken = patches.receiptOf(receipt, now);
      if (moveBy(s, receipt.task.key, taken, now)) events.push(taken.event);
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
  return moveBy(s, task.key, patches.releaseOf(task, release), now);
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
      const step = patches.pollStepOf(task, outcome, now);
      let moved: boolean;
      if (step.kind === "fail") {
        const failed = failTask(s, task, step.from, step.to, step.reason, now);
        events.push(...failed);
        moved = failed.length > 0;
      } else {
        moved =
          step.kind === "note"
            ? note.run(step.progress, step.polls, step.nextPollAt, task.key).changes === 1
            : moveBy(s, task.key, step.move, now);
        if (moved && step.kind === "move" && step.links !== null)
          insertOutputs(s, task.key, step.links);
        if (moved) events.push(...step.events);
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
  return s.transaction(() => {
    if (!moveBy(s, task.key, patches.requeueOf(from, reason), now)) return false;
    s.sql("DELETE FROM output_copies WHERE job_key = ?").run(task.key);
    s.sql("DELETE FROM outputs WHERE job_key = ?").run(task.key);
    return true;
  });
}

export function repoll(s: SqliteDb, task: TaskRow, now: number): boolean {
  return moveBy(s, task.key, patches.repollOf(task, now), now);
}

export function redownload(s: SqliteDb, task: TaskRow, now: number): boolean {
  return s.transaction(() => {
    if (!moveBy(s, task.key, patches.REDOWNLOAD, now)) return false;
    s.sql(
      "UPDATE outputs SET state = 'pending', path = NULL, sha256 = NULL, bytes = NULL WHERE job_key = ?",
    ).run(task.key);
    return true;
  });
}

export function recheck(s: SqliteDb, task: TaskRow, now: number): boolean {
  return moveBy(s, task.key, patches.RECHECK, now);
}

export function failTask(
  s: SqliteDb,
  task: TaskRow,
  from: readonly TaskState[],
  to: FailState,
  reason: string,
  now: number,
  expiredOutput?: number,
): TaskEvent[] {
  return s.transaction(() => {
    if (!moveBy(s, task.key, patches.failOf(from, to, reason), now)) return [];
    if (expiredOutput !== undefined)
      s.sql("UPDATE outputs SET state = 'expired', reason = ? WHERE job_key = ? AND idx = ?").run(
        reason,
        task.key,
        expiredOutput,
      );
    return [failedEvent(task, to, reason)];
  });
}
