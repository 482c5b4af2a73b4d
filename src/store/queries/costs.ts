import { roundMoney } from "../../core/money.js";
import type { ForDialect } from "../dialect.js";
import { read, rows } from "../program.js";
import type { CostGroup, CostGrouping, CostReport, CostScope } from "../report-port.js";
import { TASK_REQUEST } from "./tasks.js";

/**
 * What was paid, by group, with the estimate beside it (`gwrun cost`, the viewer's cost
 * panel). A task counts once the gateway took it and it was paid: its cost recorded, or it
 * finished with its outputs (a text answer without a per-token price costs nothing known).
 * `spent` is what the gateway reported (or a text answer's usage at the manifest's price);
 * `estimate` what the task was priced at before it ran — a task of unknown price at its run's
 * `limits.unknown_cost`, as `plan` and `max_cost` count it, or not at all (`unpriced`).
 */

const DAY_MS = 86_400_000;

/** The grouping's key: a model is read out of the task's request. */
const KEY_SQL: Readonly<Record<CostGrouping, ForDialect>> = {
  job: () => "jobs.job_id",
  model: (d) => d.jsonField(TASK_REQUEST, "model"),
  family: () => "coalesce(jobs.family, 'passthrough')",
  day: () => `jobs.completed_at / ${DAY_MS}`,
};

export const costReads = {
  costReport: read(function* (scope: CostScope, by: CostGrouping) {
    const run = "run" in scope ? scope.run : null;
    const found = yield* rows<{
      key: string | number | null;
      spent: number | null;
      estimate: number | null;
      at_unknown: number;
      unpriced: number;
      tasks: number;
    }>(
      (d) => `SELECT ${KEY_SQL[by](d)} AS key, sum(jobs.cost) AS spent,
         sum(coalesce(jobs.estimated_cost, runs.unknown_cost)) AS estimate,
         count(CASE WHEN jobs.estimated_cost IS NULL AND runs.unknown_cost IS NOT NULL
                    THEN 1 END) AS at_unknown,
         count(CASE WHEN jobs.estimated_cost IS NULL AND runs.unknown_cost IS NULL
                    THEN 1 END) AS unpriced,
         count(*) AS tasks
       FROM jobs LEFT JOIN runs ON runs.id = jobs.paid_run
       WHERE jobs.paid_run IS NOT NULL AND (CAST(? AS INTEGER) IS NULL OR jobs.paid_run = ?)
         AND (jobs.cost IS NOT NULL OR jobs.state IN ('completed', 'downloaded', 'done'))
       GROUP BY ${KEY_SQL[by](d)}
       ORDER BY ${by === "day" ? "1" : `min(${d.place})`}`,
      [run, run],
    );
    const groups = found.map((group) => ({
      key: keyText(group.key, by),
      spent: roundMoney(group.spent ?? 0),
      estimate: roundMoney(group.estimate ?? 0),
      atUnknownCost: Number(group.at_unknown),
      unpriced: Number(group.unpriced),
      tasks: Number(group.tasks),
    }));
    const total = (pick: (group: CostGroup) => number) =>
      roundMoney(groups.reduce((sum, group) => sum + pick(group), 0));
    return {
      spent: total((group) => group.spent),
      estimate: total((group) => group.estimate),
      atUnknownCost: total((group) => group.atUnknownCost),
      unpriced: total((group) => group.unpriced),
      groups,
    } satisfies CostReport;
  }),
};

function keyText(key: string | number | null, by: CostGrouping): string {
  if (key === null) return "unknown";
  if (by !== "day") return String(key);
  return new Date(Number(key) * DAY_MS).toISOString().slice(0, 10);
}
