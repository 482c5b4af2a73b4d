import { ExitCode, type PlanOptions, planManifestAt } from "../api/index.js";
import { shownFromCwd } from "../core/io.js";
import { moneyText, roundMoney } from "../core/money.js";
import { plural } from "../core/words.js";
import {
  describePipeline,
  type PeriodPlan,
  type PlanDiff,
  type PlannedTask,
  type PlanSpend,
} from "../plan/index.js";
import { LineSpool } from "./line-spool.js";
import { err, out, outFitted, printDiagnostics, stdoutColumns } from "./output.js";
import { cellCost, planJobLines } from "./plan-table.js";

/**
 * `gwrun plan <manifest>`: what a run would do, per job, against the state database — new
 * (paid for), done, in flight, failed or expired — with the cost of only what is new.
 */
export async function planManifest(
  file: string,
  options: PlanOptions & { json?: boolean },
): Promise<ExitCode> {
  // The tasks are printed after the totals, which are known once every task is planned.
  const spool = options.json === true ? new LineSpool() : undefined;
  try {
    const onTask = (task: PlannedTask) => spool?.add(JSON.stringify(task));
    const { manifest, plan, store } = await planManifestAt(file, { ...options, onTask });
    printDiagnostics(manifest.diagnostics, manifest.text);
    if (plan === undefined) {
      err(`${file}: invalid; nothing was planned`);
      return ExitCode.Invalid;
    }
    if (spool !== undefined) await printJson(plan, spool);
    else {
      printPlan(
        plan,
        store.exists ? store.name : `${store.name} does not exist yet: every task is new`,
      );
      if (store.elsewhere !== undefined) {
        const { known, store: other } = store.elsewhere;
        out(
          `  elsewhere: ${known} of these ${known === 1 ? "task is" : "tasks are"} recorded in ${other}, the store of the folder you are in, not in ${store.name} of this manifest's project`,
        );
        out(`    with that store they are not paid for again: gwrun plan --db ${other} ${file}`);
      }
    }
    return ExitCode.Ok;
  } finally {
    spool?.remove();
  }
}

function printPlan(plan: PlanDiff, state: string): void {
  const columns = stdoutColumns();
  const say = (line: string) => outFitted(line, columns);
  say(
    `plan: ${plan.name} (${plan.manifest}) against ${plan.gateway === "sim" ? "the built-in simulator" : plan.gateway}`,
  );
  say(`  state: ${state}`);
  if (plan.schedule !== null) {
    say(
      `  schedule: "${plan.schedule.cron}" in ${plan.schedule.timezone}; this run is tick ${plan.schedule.label}`,
    );
  }
  out();
  for (const line of planJobLines(plan, columns)) say(line);
  out();
  if (plan.pipelines.length > 0) {
    say("  pipelines (each step starts as soon as its input is on disk):");
    for (const chain of plan.pipelines) say(`    ${describePipeline(chain)}`);
    out();
  }
  const { totals } = plan;
  say(
    `  total: ${totals.tasksUpperBound ? "up to " : ""}${totals.tasks} tasks, ${totals.outputsUpperBound ? "up to " : ""}${totals.outputs} outputs, estimated cost ${costText(totals.cost, totals.tasksWithUnknownCost, totals.tasks, plan.unknownCost)}`,
  );
  const { status } = totals;
  const upTo = totals.statusUpperBound ? "up to " : "";
  say(
    `  of these: ${upTo}${status.new} new (cost ${costText(totals.newCost, totals.newWithUnknownCost, status.new, plan.unknownCost, "unknown")}), ${status.done} done, ${status.in_flight} in flight, ${status.failed + status.expired} failed/expired`,
  );
  for (const line of spendLines(plan.totals.spend, status.new)) say(line);
  for (const line of periodLines(plan.periods ?? [], status.new)) say(line);
  for (const line of recordLines(plan)) say(line);
  for (const { target, refused } of plan.publish ?? [])
    say(`  publish: ${refused === null ? `${target}` : `refused: ${refused}`}`);
}

/** Judge calls, retakes, the range they make, and where `max_cost` stands. */
function spendLines(spend: PlanSpend, fresh: number): string[] {
  const lines: string[] = [];
  const money = (value: number | null) => (value === null ? "unknown" : moneyText(value));
  if (spend.judge !== null) {
    const { calls, each, cost } = spend.judge;
    lines.push(
      `  judge: ${plural(calls, "call")}, one per new output of a judged job, ${each === null ? "priced by tokens or unknown" : `at ${moneyText(each)}`}: ${money(cost)}`,
    );
  }
  if (spend.retakes !== null)
    lines.push(
      `  on_fail: retry may make up to ${plural(spend.retakes.upTo, "more take")} (each judged again): up to ${money(spend.retakes.cost)} more`,
    );
  if (spend.judge !== null || spend.retakes !== null)
    lines.push(
      `  estimated spend of this run: ${money(spend.low)}${spend.high !== spend.low ? ` to ${money(spend.high)} with every retake` : ""}`,
    );
  const budget = spend.budget;
  if (budget === null || fresh === 0) return lines;
  const cap = `max_cost ${moneyText(budget.maxCost)}`;
  switch (budget.verdict) {
    case "within":
      lines.push(`  budget: ${cap} covers the estimate`);
      break;
    case "retakes":
      lines.push(
        `  budget: ${cap} covers the first takes; retakes may reach it, and the run stops sending there (exit 3)`,
      );
      break;
    case "stops":
      lines.push(
        `  budget: the run would stop at ${cap}, after about ${budget.stopsAfter} of ${plural(fresh, "new task")} (exit 3); raise max_cost to run them all`,
      );
      break;
    case "unknown":
      lines.push(
        `  budget: ${cap} cannot be held to the estimate: some prices are unknown (set limits.unknown_cost)`,
      );
      break;
    default: {
      const never: never = budget.verdict;
      throw new Error(`unknown budget verdict ${String(never)}`);
    }
  }
  return lines;
}

/** Each budget across runs: what its period has left, and where this run would stop. */
function periodLines(periods: readonly PeriodPlan[], fresh: number): string[] {
  return periods.map(({ gateway, per, limit, spent, remaining, timezone, resets_at, budget }) => {
    const head = `  budget across runs: ${moneyText(limit)} per ${per} for ${gateway === "" ? "every gateway" : gateway} (${timezone}): ${moneyText(spent)} spent, ${moneyText(remaining)} left until ${resets_at}`;
    if (fresh === 0) return head;
    switch (budget.verdict) {
      case "within":
        return `${head}; it covers the estimate`;
      case "stops":
        return `${head}; the run would stop there, after about ${budget.stopsAfter} of ${plural(fresh, "new task")} (exit 3)`;
      case "retakes":
        return `${head}; retakes may reach it, and the run stops sending there (exit 3)`;
      default:
        return `${head}; some prices are unknown: the run stops sending when it is reached (exit 3)`;
    }
  });
}

/** What a run would do to files already paid for: supersede, deliver, or fetch or make again. */
function recordLines(plan: PlanDiff): string[] {
  const lines: string[] = [];
  const per = (pick: (group: PlanDiff["groups"][number]) => number) =>
    plan.groups
      .filter((group) => pick(group) > 0)
      .map((group) => `${group.job} ${pick(group)}`)
      .join(", ");
  const superseded = plan.groups.reduce((sum, group) => sum + group.supersedes, 0);
  if (superseded > 0)
    lines.push(
      `  supersedes ${plural(superseded, "output")} (${per((group) => group.supersedes)}): their requests changed; the new files get names of their own (-v2…), the old ones stay`,
    );
  const delivered = plan.groups.reduce((sum, group) => sum + group.delivers, 0);
  if (delivered > 0)
    lines.push(
      `  delivers ${plural(delivered, "done task")} (${per((group) => group.delivers)}) made into another folder: their files are linked or copied into this run's, not paid again`,
    );
  for (const missing of plan.missing.slice(0, MISSING_SHOWN))
    lines.push(
      `  missing: ${missing.label}: ${missing.files.map((file) => shownFromCwd(file)).join(", ")} not on disk as recorded; ${missing.action === "download" ? "its links work: downloaded again" : "its links have expired: made again (new)"}`,
    );
  if (plan.missing.length > MISSING_SHOWN)
    lines.push(`  … and ${plan.missing.length - MISSING_SHOWN} more tasks with files missing`);
  return lines;
}

/** Missing files named one by one; the rest are counted. */
const MISSING_SHOWN = 10;

/** A sum of known prices, and what is unknown of it (counted at `unknown_cost` when set). */
function costText(
  known: number,
  unknownTasks: number,
  tasks: number,
  unknownCost: number | null,
  allUnknown = "unknown (no price in prices: and none stated by the spec)",
): string {
  const tasksWord = unknownTasks === 1 ? "task" : "tasks";
  if (unknownTasks === 0) return moneyText(known);
  if (unknownCost !== null) {
    const total = roundMoney(known + unknownCost * unknownTasks).toFixed(2);
    return `${cellCost(known, unknownTasks, unknownCost)} unknown-price ${tasksWord} at unknown_cost = ${total}`;
  }
  if (unknownTasks === tasks) return allUnknown;
  return `${moneyText(known)} + unknown for ${unknownTasks} ${tasksWord}`;
}

/**
 * The plan as JSON, as `JSON.stringify(plan, null, 2)` would print it but for its task rows, one
 * per line, and a line at a time: a plan of 100k tasks, or of 100k jobs, is a hundred megabytes
 * of text, which one string would hold twice over.
 */
async function printJson(diff: PlanDiff, tasks: LineSpool): Promise<void> {
  const lines: string[] = [];
  const say = (line: string) => {
    lines.push(line);
    if (lines.length >= 1000) flush();
  };
  const flush = () => {
    out(lines.join("\n"));
    lines.length = 0;
  };
  const { tasks: _none, ...rest } = diff;
  say("{");
  const entries = Object.entries(rest).filter(([, value]) => value !== undefined);
  for (const [key, value] of entries) {
    const name = `  ${JSON.stringify(key)}: `;
    if (!Array.isArray(value) || value.length === 0) {
      say(`${name}${indented(JSON.stringify(value, null, 2))},`);
      continue;
    }
    say(`${name}[`);
    value.forEach((item, i) => {
      say(
        `    ${indented(JSON.stringify(item, null, 2) ?? "null", 4)}${i < value.length - 1 ? "," : ""}`,
      );
    });
    say("  ],");
  }
  say(`  "tasks": [`);
  let left = tasks.count;
  for await (const task of tasks.lines()) {
    left -= 1;
    say(`    ${task}${left > 0 ? "," : ""}`);
  }
  say("  ]");
  say("}");
  flush();
}

/** JSON text of several lines, its lines after the first indented by `depth` more. */
function indented(text: string, depth = 2): string {
  return text.replaceAll("\n", `\n${" ".repeat(depth)}`);
}
