import { roundMoney } from "../core/money.js";
import type { GroupDiff, PlanBudget, PlanSpend } from "./diff-types.js";

/**
 * What a run of the plan would spend, as `max_cost` counts it: the new tasks at their prices
 * (a task of unknown price at `limits.unknown_cost`, else unknown), a judge call for each new
 * output of a judged job, and, as the top of a range, the takes `on_fail: retry` may add
 * (each with its judge call). Then where `max_cost` would stop the run.
 */

export function planSpend(
  groups: readonly GroupDiff[],
  unknownCost: number | null,
  maxCost: number | null,
): PlanSpend {
  const unknown = unknownCost ?? null;
  const priced = (known: number, unpriced: number): number | null =>
    unpriced === 0 ? known : unknown === null ? null : known + unpriced * unknown;
  const add = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
  let tasks: number | null = 0;
  let calls = 0;
  let judgeCost: number | null = 0;
  let judgeEach: number | null | undefined;
  let retakes = 0;
  let retakeCost: number | null = 0;
  let newTasks = 0;
  for (const group of groups) {
    const fresh = group.status.new;
    if (fresh === 0) continue;
    newTasks += fresh;
    const cost = priced(group.newCost, group.newWithUnknownCost);
    tasks = add(tasks, cost);
    const outputs = group.tasks === 0 ? 0 : (group.outputs.count * fresh) / group.tasks;
    const judged = group.judge === null ? 0 : Math.ceil(outputs);
    const each = group.judge === null ? 0 : (group.judge.each ?? unknown);
    if (group.judge !== null) {
      calls += judged;
      judgeEach = judgeEach === undefined || judgeEach === each ? each : null;
      judgeCost = add(judgeCost, each === null ? null : judged * each);
    }
    if (group.retakesPerTask > 0) {
      const more = fresh * group.retakesPerTask;
      retakes += more;
      // A take costs what its task did, and its outputs are judged again.
      const perTake =
        cost === null || each === null ? null : cost / fresh + (judged / fresh) * each;
      retakeCost = add(retakeCost, perTake === null ? null : more * perTake);
    }
  }
  const low = add(tasks, calls > 0 ? judgeCost : 0);
  const high = add(low, retakes > 0 ? retakeCost : 0);
  const money = (value: number | null) => (value === null ? null : roundMoney(value));
  return {
    tasks: money(tasks),
    judge: calls === 0 ? null : { calls, each: judgeEach ?? null, cost: money(judgeCost) },
    retakes: retakes === 0 ? null : { upTo: retakes, cost: money(retakeCost) },
    low: money(low),
    high: money(high),
    budget: maxCost === null ? null : budgetOf(maxCost, money(low), money(high), newTasks),
  };
}

/** Where a budget of `maxCost` stands against the estimate's range. */
export function budgetOf(
  maxCost: number,
  low: number | null,
  high: number | null,
  newTasks: number,
): PlanBudget {
  if (low === null) return { maxCost, verdict: "unknown", stopsAfter: null };
  if (low > maxCost)
    return {
      maxCost,
      verdict: "stops",
      // At the plan's average cost a task: a rough count, said as "about".
      stopsAfter: low === 0 ? newTasks : Math.floor((newTasks * maxCost) / low),
    };
  if (high === null || high > maxCost) return { maxCost, verdict: "retakes", stopsAfter: null };
  return { maxCost, verdict: "within", stopsAfter: null };
}
