import { type CostOutcome, costOf, ExitCode, storeAt, withExistingStore } from "../api/index.js";
import { moneyText, roundMoney } from "../core/money.js";
import { terminalJson, terminalText } from "../core/text-filter.js";
import { padEndToWidth, padStartToWidth } from "../core/text-width.js";
import type { CostGrouping } from "../store/index.js";
import { estimateWords } from "../ui/index.js";
import { out } from "./output.js";

/**
 * `gwrun cost [run]`: what a run (or every run in the store) paid, by group, with the
 * estimate beside it and where they differ by how much. `--json` prints exactly
 * `{ spent, estimate, atUnknownCost, unpriced, groups: [{ key, spent, estimate, atUnknownCost,
 * unpriced, tasks }] }`.
 */
export function showCost(
  ref: string | undefined,
  flags: { db?: string; store?: string; json?: boolean; by: CostGrouping },
): Promise<ExitCode> {
  const at = storeAt(flags);
  return withExistingStore(at, async (store) => {
    const report = await costOf(store, at.location, ref, flags.by);
    if (flags.json === true) {
      const { spent, estimate, atUnknownCost, unpriced, groups } = report;
      out(terminalJson({ spent, estimate, atUnknownCost, unpriced, groups }, 2));
    } else for (const line of costLines(report)) out(line);
    return ExitCode.Ok;
  });
}

/** The report as a table: one row per group, then the total. */
export function costLines(report: CostOutcome): string[] {
  const of =
    report.run === null ? "every run" : `run ${report.run.id} (${terminalText(report.run.name)})`;
  const estimated = estimateWords(report.spent, report);
  const head = `cost of ${of} by ${report.by}: paid ${moneyText(report.spent)}${estimated === "" ? "" : `, ${estimated}`}`;
  if (report.groups.length === 0) return [head, "  nothing paid yet"];
  const rows = [
    [report.by, "tasks", "spent", "estimate", "difference"],
    ...report.groups.map((group) => [
      terminalText(group.key),
      String(group.tasks),
      moneyText(group.spent),
      // Tasks of unknown price without unknown_cost are not in the estimate: no difference.
      group.unpriced > 0
        ? `${moneyText(group.estimate)} + ${group.unpriced} unknown`
        : moneyText(group.estimate),
      group.unpriced > 0 ? "" : signed(roundMoney(group.spent - group.estimate)),
    ]),
  ];
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  const lines = rows.map(
    (row) =>
      `  ${row
        .map((cell, column) =>
          column === 0
            ? padEndToWidth(cell, widths[column] ?? 0)
            : padStartToWidth(cell, widths[column] ?? 0),
        )
        .join("  ")
        .trimEnd()}`,
  );
  return [head, "", ...lines];
}

function signed(value: number): string {
  if (value === 0) return "";
  return `${value > 0 ? "+" : "-"}${moneyText(Math.abs(value))}`;
}
