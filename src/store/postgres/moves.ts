import { checkedMove, type MovePatch } from "../move.js";
import type { TaskState } from "../states.js";
import type { Transition } from "../transition-patches.js";
import type { Sql } from "./db.js";

/** A guarded move as PostgreSQL makes it, and what every statement that moves tasks shares. */

/**
 * Moves a task if it is in one of `from` (compare-and-set), logging the move; false when
 * another process or step moved it first. The update and its event are one statement, so
 * they commit together even outside a transaction.
 */
export async function move(
  sql: Sql,
  key: string,
  { from, to, patch }: Transition,
  now: number,
): Promise<boolean> {
  const { set, values } = moveSet(from, to, patch, 6);
  const moved = await sql.query(
    `WITH moved AS (
       UPDATE jobs SET state = $1, updated_at = $2${set}
       WHERE key = $3 AND state = ANY($4::text[]) RETURNING run_id, key),
     ${logged("$5")}
     SELECT key FROM moved`,
    [to, now, key, [...from], patch.reason ?? null, ...values],
  );
  return moved.rows.length === 1;
}

/**
 * The event of each task a statement moved (its CTE `moved`; the state entered in `$1`, the
 * time in `$2`), logged by the same statement; `data`: what the event says.
 */
export const logged = (data: string) =>
  `logged AS (INSERT INTO events (run_id, at, job_key, type, data)
     SELECT run_id, $2, key, 'job:' || $1, ${data} FROM moved)`;

/**
 * A guarded move's columns for its SET clause, after the state graph allowed it: each column
 * of `patch` bound to a parameter from `$first` on (`, column = $n`), and the values in order.
 */
export function moveSet(
  from: readonly TaskState[],
  to: TaskState,
  patch: MovePatch,
  first: number,
): { set: string; values: ReturnType<typeof checkedMove>["values"] } {
  const { columns, values } = checkedMove(from, to, patch);
  return { set: columns.map((column, i) => `, ${column} = $${i + first}`).join(""), values };
}

/**
 * Locks the tasks a transaction will move, in key order, before it moves any: two processes
 * moving the same tasks (a claim of one batch, in two orders) then queue one behind the other
 * instead of deadlocking. The guarded moves after it decide what each one may still do.
 */
export async function lockTasks(sql: Sql, keys: readonly string[]): Promise<void> {
  if (keys.length > 1)
    await sql.query("SELECT key FROM jobs WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE", [
      [...keys],
    ]);
}

/**
 * A move a server-side function makes sets the columns written in it: `columns` (of the
 * move's patch, in order) must be those, `sets`, or the function would drop some.
 */
export function movesOnly(columns: readonly string[], sets: readonly string[], fn: string): void {
  if (columns.join() !== sets.join())
    throw new Error(`${fn} sets ${sets.join(", ") || "no column"} with the state, not ${columns}`);
}
