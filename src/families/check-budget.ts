import type { Diagnostic, ExpandedManifest } from "../manifest/index.js";
import type { CheckedJob } from "./check-jobs.js";
import { taskCost } from "./prices.js";

/**
 * `max_cost` protects only what has a reservation: a task reserves its stated price, else
 * `limits.unknown_cost`. Without that, tasks of an unknown price are sent unreserved, so the
 * budget line gets a warning naming them (not an error: the user may accept the risk).
 */
export function checkBudget(manifest: ExpandedManifest, jobs: readonly CheckedJob[]): Diagnostic[] {
  const check = new BudgetCheck(manifest);
  for (const checked of jobs) check.add(checked);
  return check.finish();
}

/** `checkBudget` fed one checked expansion at a time: it keeps counts and job ids. */
export class BudgetCheck {
  #tasks = 0;
  readonly #ids = new Set<string>();
  // A `from:` job's tasks come one per upstream output: named, not counted.
  readonly #fromIds = new Set<string>();

  constructor(private readonly manifest: ExpandedManifest) {}

  add({ job, family, body, price }: CheckedJob): void {
    const { settings } = this.manifest;
    if (settings?.limits.maxCost === undefined || settings.limits.unknownCost !== undefined) return;
    if (taskCost(family, body, price) !== null) return;
    if (job.spec.from === undefined) {
      this.#tasks += job.spec.repeat;
      this.#ids.add(job.spec.id);
    } else this.#fromIds.add(job.spec.id);
  }

  finish(): Diagnostic[] {
    const { reporter } = this.manifest;
    const tasks = this.#tasks;
    const ids = this.#ids;
    const fromIds = this.#fromIds;
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
}

function jobIds(ids: ReadonlySet<string>): string {
  return `${ids.size === 1 ? "job id" : "job ids"} ${[...ids].join(", ")}`;
}
