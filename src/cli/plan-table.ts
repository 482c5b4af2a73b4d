import { moneyText } from "../core/money.js";
import { displayWidth, padEndToWidth, padStartToWidth } from "../core/text-width.js";
import type { PlanDiff } from "../plan/index.js";
import { isNarrow } from "./output.js";

/**
 * `gwrun plan`'s jobs: a table, one row per job, where it fits the screen; on a narrow screen
 * (or one the table is wider than) two lines per job that wrap no further than they must.
 */

const HEADER = [
  "job",
  "family",
  "model",
  "input",
  "tasks",
  "outputs",
  "new",
  "done",
  "in flight",
  "failed/expired",
  "cost of new",
] as const;

/** The columns right-aligned: counts. */
const NUMERIC = new Set([4, 6, 7, 8, 9]);

type Group = PlanDiff["groups"][number];

/** The cells of a job's row, in the order of HEADER. */
function cellsOf(group: Group, unknownCost: number | null): string[] {
  const bound = group.statusExact ? "" : "≤";
  const { status } = group;
  return [
    group.job,
    group.familyTitle,
    group.models.length === 1 ? (group.models[0] as string) : `${group.models.length} models`,
    group.from === null ? "" : `from ${group.from}`,
    `${group.tasksExact ? "" : "≤"}${group.tasks}`,
    `${group.outputs.exact ? "" : "≤"}${group.outputs.count} ${outputWord(group.outputs.kind, group.outputs.count)}`,
    `${status.new === 0 ? "" : bound}${status.new}`,
    `${status.done}`,
    `${status.in_flight}`,
    `${status.failed + status.expired === 0 ? "" : bound}${status.failed + status.expired}`,
    cellCost(group.newCost, group.newWithUnknownCost, unknownCost),
  ];
}

/** The lines of the jobs for a screen `columns` wide (undefined: any width). */
export function planJobLines(plan: PlanDiff, columns: number | undefined): string[] {
  const rows = plan.groups.map((group) => cellsOf(group, plan.unknownCost));
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => displayWidth(row[column] as string))),
  );
  const tableWidth = 2 + widths.reduce((sum, width) => sum + width + 2, -2);
  if (!isNarrow(columns) && (columns === undefined || tableWidth <= columns)) {
    const line = (cells: readonly string[]) =>
      `  ${cells.map((cell, column) => (NUMERIC.has(column) ? padStartToWidth(cell, widths[column] as number) : padEndToWidth(cell, widths[column] as number))).join("  ")}`.trimEnd();
    return [line(HEADER), ...rows.map(line)];
  }
  // Counts of none are left out: the table's zeros say nothing a narrow line has room for.
  return rows.flatMap(
    ([job, family, model, from, tasks, outputs, fresh, done, flight, failed, cost]) => {
      const counts = [
        `${fresh} new`,
        ...[`${done} done`, `${flight} in flight`, `${failed} failed/expired`].filter(
          (count) => !count.startsWith("0 "),
        ),
      ];
      return [
        `  ${[job, family, model, from].filter((cell) => cell !== "").join(" · ")}`,
        `    ${tasks} ${tasks === "1" ? "task" : "tasks"}, ${outputs}: ${counts.join(", ")}; cost of new ${cost}`,
      ];
    },
  );
}

/** A cost in a table cell: stated prices, plus `unknown_cost` × the tasks without one. */
export function cellCost(known: number, unknownTasks: number, unknownCost: number | null): string {
  if (unknownTasks === 0) return moneyText(known);
  if (unknownCost === null) return "unknown";
  const reserved = `${unknownCost.toFixed(2)} × ${unknownTasks}`;
  return known === 0 ? reserved : `${moneyText(known)} + ${reserved}`;
}

function outputWord(kind: string, count: number): string {
  const word = kind === "text" ? "text" : kind;
  return count === 1 || word === "text" ? word : `${word}s`;
}
