import type { TaskRow } from "./rows.js";
import { canMove, type TaskState } from "./states.js";

/** Columns a transition may set besides the state: each transition names its own. */
const MOVE_COLUMN_NAMES = [
  "task_id",
  "attempts",
  "unknown_submits",
  "claimed_by",
  "progress",
  "polls",
  "next_poll_at",
  "cost",
  "reason",
  "submitted_at",
  "started_at",
  "completed_at",
  "done_at",
  "paid_run",
] as const satisfies readonly (keyof TaskRow)[];

/** Guards the column names spliced into a move's SQL: only these may be set. */
export const MOVE_COLUMNS: ReadonlySet<string> = new Set(MOVE_COLUMN_NAMES);

export type MovePatch = Partial<Pick<TaskRow, (typeof MOVE_COLUMN_NAMES)[number]>>;

/**
 * Checks a move before either adapter writes its SQL: the state graph must allow it, and only
 * movable columns may be spliced in. The columns to set, and their values in that order.
 */
export function checkedMove(
  from: readonly TaskState[],
  to: TaskState,
  patch: MovePatch,
): { columns: string[]; values: (NonNullable<MovePatch[keyof MovePatch]> | null)[] } {
  for (const source of from) {
    if (!canMove(source, to)) throw new Error(`task state ${source} → ${to} is not allowed`);
  }
  const columns = Object.keys(patch);
  for (const column of columns)
    if (!MOVE_COLUMNS.has(column)) throw new Error(`unknown task column ${column}`);
  return { columns, values: columns.map((column) => patch[column as keyof MovePatch] ?? null) };
}
