import type { TaskRow } from "./rows.js";

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
] as const satisfies readonly (keyof TaskRow)[];

/** Guards the column names spliced into a move's SQL: only these may be set. */
export const MOVE_COLUMNS: ReadonlySet<string> = new Set(MOVE_COLUMN_NAMES);

export type MovePatch = Partial<Pick<TaskRow, (typeof MOVE_COLUMN_NAMES)[number]>>;
