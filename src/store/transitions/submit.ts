import { type ArgsOf, batch, first, lock, move, perTask, transaction, write } from "../program.js";
import type { TaskRow } from "../rows.js";
import type { TaskEvent } from "../task-events.js";
import type { Receipt } from "../transition-inputs.js";
import { claimOf, receiptOf, releaseOf } from "../transition-patches.js";

/** A task from pending to the gateway: its claim, its receipt, or the claim given back. */

export const submitTransitions = {
  claimForSubmit: perTask(
    transaction(function* (tasks: readonly TaskRow[], owner: string, now: number) {
      yield* lock(tasks.map((task) => task.key));
      const claims = tasks.map((task) => claimOf(task, owner));
      const moved = yield* batch("moves", {
        moves: claims.map((claim) => ({ key: claim.claimed.key, transition: claim })),
        now,
      });
      const taken = claims.filter((claim) => moved.has(claim.claimed.key));
      return {
        claimed: taken.map((claim) => claim.claimed),
        events: taken.map((claim) => claim.event),
      };
    }),
  ),
  recordReceipts: perTask(
    transaction(function* (receipts: readonly Receipt[], now: number) {
      yield* lock(receipts.map((receipt) => receipt.task.key));
      const events: TaskEvent[] = [];
      const duplicates = new Map<string, string>();
      for (const receipt of receipts) {
        // A task id another task holds already is refused: both must not take the one result.
        const held = yield* first<{ label: string }>(
          "SELECT label FROM jobs WHERE task_id = ? AND key <> ? LIMIT 1",
          [receipt.taskId, receipt.task.key],
        );
        if (held !== undefined) {
          duplicates.set(receipt.task.key, held.label);
          continue;
        }
        const taken = receiptOf(receipt, now);
        if (yield* move(receipt.task.key, taken, now)) events.push(taken.event);
      }
      return { events, duplicates };
    }),
  ),
  releaseClaim: write(function* (...[task, release, now]: ArgsOf<"releaseClaim">) {
    return yield* move(task.key, releaseOf(task, release), now);
  }),
};
