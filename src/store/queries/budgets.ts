import { roundMoney } from "../../core/money.js";
import type { BudgetRow } from "../budget-port.js";
import { type ArgsOf, changes, first, type Program, read, rows, transaction } from "../program.js";

/**
 * Budgets across runs, and what a period spent. A task counts as the run's own budget counts
 * it (`Admission`, the fleet's `gwrun_spend_of`): its cost once paid (its reservation when no
 * cost came), its reservation while in flight — its estimate, else its run's `unknown_cost` —
 * and that reservation again for each submit of unknown outcome. It counts in the period it
 * was sent in (one being sent, claimed and not yet answered: when it was claimed).
 */

const SPEND = `CASE
    WHEN jobs.state IN ('completed', 'downloaded', 'done')
      THEN coalesce(jobs.cost, jobs.estimated_cost, runs.unknown_cost, 0)
    WHEN jobs.state IN ('submitting', 'submitted', 'processing')
      THEN coalesce(jobs.estimated_cost, runs.unknown_cost, 0)
    ELSE coalesce(jobs.cost, 0) END
  + coalesce(jobs.estimated_cost, runs.unknown_cost, 0) * jobs.unknown_submits`;

export const budgetOperations = {
  setBudget: transaction(function* (...[budget]: ArgsOf<"setBudget">) {
    yield* changes(
      `INSERT INTO budgets (scope, amount, per, timezone, warn_at, set_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope) DO UPDATE SET amount = excluded.amount, per = excluded.per,
         timezone = excluded.timezone, warn_at = excluded.warn_at, set_at = excluded.set_at`,
      [budget.scope, budget.amount, budget.per, budget.timezone, budget.warn_at, budget.set_at],
    );
  }),
  clearBudget: transaction(function* (scope: string) {
    return (yield* changes("DELETE FROM budgets WHERE scope = ?", [scope])) > 0;
  }),
  budgets: read(function* () {
    return yield* rows<BudgetRow>("SELECT * FROM budgets ORDER BY scope");
  }),
  periodSpend: read(function* (...[period]: ArgsOf<"periodSpend">) {
    return yield* periodSpendOf(period);
  }),
};

/** What a period spent or reserves (`BudgetStore.periodSpend`), for a program to compose. */
export function* periodSpendOf(...[period]: ArgsOf<"periodSpend">): Program<number> {
  const found = yield* first<{ spent: number | null }>(
    `SELECT sum(${SPEND}) AS spent FROM jobs JOIN runs ON runs.id = coalesce(jobs.paid_run, jobs.run_id)
       WHERE ((jobs.submitted_at >= ? AND jobs.submitted_at < ?)
              OR (jobs.state = 'submitting' AND jobs.updated_at >= ? AND jobs.updated_at < ?))
         AND (? = '' OR runs.base_url = ?) AND coalesce(jobs.paid_run, jobs.run_id) <> ?`,
    [
      period.since,
      period.until,
      period.since,
      period.until,
      period.gateway,
      period.gateway,
      period.except ?? -1,
    ],
  );
  return roundMoney(Number(found?.spent ?? 0));
}
