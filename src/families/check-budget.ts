import type { Diagnostic, ExpandedManifest } from "../manifest/index.js";
import type { CheckedJob } from "./check-jobs.js";
import { taskCost } from "./prices.js";

/**
 * `max_cost` protects only what has a reservation: a task reserves its stated price, else
 * `limits.unknown_cost`. Without that, tasks of an unknown price are sent unreserved, so the
 * budget line gets a warning naming them (not an error: the user may accept the risk).
 */
export function checkBudget(manifest: ExpandedManifest, jobs: readonly CheckedJob[]): Diagnostic[] {
  const { settings, reporter } = manifest;
  if (settings?.limits.maxCost === undefined || settings.limits.unknownCost !== undefined)
    return [];
  let tasks = 0;
  const ids = new Set<string>();
  // A `from:` job's tasks come one per upstream output: named, not counted.
  const fromIds = new Set<string>();
  for (const { job, family, body, price } of jobs) {
    if (taskCost(family, body, price) !== null) continue;
    if (job.spec.from === undefined) {
      tasks += job.spec.repeat;
      ids.add(job.spec.id);
    } else fromIds.add(job.spec.id);
  }
  if (ids.size === 0 && fromIds.size === 0) return [];
  const parts: string[] = [];
  if (ids.size > 0)
    parts.push(
      `${tasks} ${tasks === 1 ? "task" : "tasks"} whose price is unknown (${jobIds(ids)})`,
    );
  if (fromIds.size > 0)
    parts.push(`${ids.size > 0 ? "nor " : ""}the tasks of from: ${jobIds(fromIds)}`);
  const start = reporter.diagnostics.length;
  reporter.at(
    ["limits", "max_cost"],
    "unknown-price",
    `max_cost cannot protect ${parts.join(", ")}${ids.size === 0 ? ", whose price is unknown" : ""}; set limits.unknown_cost`,
    { severity: "warning" },
  );
  return reporter.diagnostics.slice(start);
}

function jobIds(ids: ReadonlySet<string>): string {
  return `${ids.size === 1 ? "job id" : "job ids"} ${[...ids].join(", ")}`;
}
