import { roundMoney } from "../../core/money.js";
import { read, rows } from "../program.js";

/**
 * What was paid, by group, with the estimate beside it (`gwrun cost`, the viewer's cost
 * panel). A task counts once the gateway took it and it was paid: its cost recorded, or it
 * finished with its outputs (a text answer without a per-token price costs nothing known).
 * `spent` is what the gateway reported (or a text answer's usage at the manifest's price);
 * `estimate` what the task was priced at before it ran.
 */

export const COST_GROUPINGS = ["job", "model", "family", "day"] as const;
export type CostGrouping = (typeof COST_GROUPINGS)[number];

/** The tasks a run paid for, or every task the store holds. */
export type CostScope = { run: number } | { all: true };

export interface CostGroup {
  /** The job id, model, family id, or UTC day (YYYY-MM-DD) of completion. */
  key: string;
  spent: number;
  estimate: number;
  tasks: number;
}

export interface CostReport {
  spent: number;
  estimate: number;
  groups: CostGroup[];
}

const DAY_MS = 86_400_000;

/** The grouping's key, written once for both databases (`CAST(… AS jsonb)`: see `dialect.ts`). */
const KEY_SQL: Readonly<Record<CostGrouping, string>> = {
  job: "jobs.job_id",
  model: "CAST(jobs.request AS jsonb) ->> 'model'",
  family: "coalesce(jobs.family, 'passthrough')",
  day: `jobs.completed_at / ${DAY_MS}`,
};

export const costReads = {
  costReport: read(function* (scope: CostScope, by: CostGrouping) {
    const run = "run" in scope ? scope.run : null;
    const found = yield* rows<{
      key: string | number | null;
      spent: number | null;
      estimate: number | null;
      tasks: number;
    }>(
      `SELECT ${KEY_SQL[by]} AS key, sum(jobs.cost) AS spent, sum(jobs.estimated_cost) AS estimate,
         count(*) AS tasks
       FROM jobs
       WHERE jobs.paid_run IS NOT NULL AND (CAST(? AS INTEGER) IS NULL OR jobs.paid_run = ?)
         AND (jobs.cost IS NOT NULL OR jobs.state IN ('completed', 'downloaded', 'done'))
       GROUP BY ${KEY_SQL[by]}
       ORDER BY ${by === "day" ? "1" : "min(jobs.place)"}`,
      [run, run],
    );
    const groups = found.map((group) => ({
      key: keyText(group.key, by),
      spent: roundMoney(group.spent ?? 0),
      estimate: roundMoney(group.estimate ?? 0),
      tasks: Number(group.tasks),
    }));
    const total = (pick: (group: CostGroup) => number) =>
      roundMoney(groups.reduce((sum, group) => sum + pick(group), 0));
    return {
      spent: total((group) => group.spent),
      estimate: total((group) => group.estimate),
      groups,
    } satisfies CostReport;
  }),
};

function keyText(key: string | number | null, by: CostGrouping): string {
  if (key === null) return "unknown";
  if (by !== "day") return String(key);
  return new Date(Number(key) * DAY_MS).toISOString().slice(0, 10);
}
