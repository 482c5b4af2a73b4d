import { checkManifestFile, describePipeline, type Plan, planRun } from "../plan/index.js";
import { ExitCode } from "./exit-codes.js";
import { err, out, printDiagnostics } from "./output.js";

/** `gwrun plan <manifest>`: what a run would submit, per job, with outputs and estimated cost. */
export async function planManifest(file: string, options: { json?: boolean }): Promise<ExitCode> {
  const checked = await checkManifestFile(file);
  printDiagnostics(checked.diagnostics, checked.source.text);
  if (!checked.valid || checked.expanded.settings === undefined) {
    err(`${file}: invalid; nothing was planned`);
    return ExitCode.Invalid;
  }
  const plan = planRun(file, checked.expanded.settings, checked.jobs, {
    moment: checked.expanded.moment,
  });
  if (options.json === true) out(JSON.stringify(plan, null, 2));
  else printPlan(plan);
  return ExitCode.Ok;
}

function printPlan(plan: Plan): void {
  out(
    `plan: ${plan.name} (${plan.manifest}) against ${plan.gateway === "sim" ? "the built-in simulator" : plan.gateway}`,
  );
  if (plan.schedule !== null) {
    out(
      `  schedule: "${plan.schedule.cron}" in ${plan.schedule.timezone}; this run is tick ${plan.schedule.label}`,
    );
  }
  out();
  const rows = plan.groups.map((group) => [
    group.job,
    group.familyTitle,
    group.models.length === 1 ? (group.models[0] as string) : `${group.models.length} models`,
    group.from === null ? "" : `from ${group.from}`,
    `${group.tasksExact ? "" : "≤"}${group.tasks}`,
    `${group.outputs.exact ? "" : "≤"}${group.outputs.count} ${plural(group.outputs.kind, group.outputs.count)}`,
    group.cost === null ? "unknown" : group.cost.toFixed(2),
  ]);
  const header = ["job", "family", "model", "input", "tasks", "outputs", "est. cost"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: string[]) =>
    `  ${cells.map((cell, column) => (column === 4 ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number))).join("  ")}`.trimEnd();
  out(line(header));
  for (const row of rows) out(line(row));
  out();
  if (plan.pipelines.length > 0) {
    out("  pipelines (each step starts as soon as its input is on disk):");
    for (const chain of plan.pipelines) out(`    ${describePipeline(chain)}`);
    out();
  }
  const { totals } = plan;
  const unknownTasks = totals.tasksWithUnknownCost;
  const known = totals.cost.toFixed(2);
  const cost =
    unknownTasks === 0
      ? known
      : unknownTasks === totals.tasks
        ? "unknown (the spec states no price for these families)"
        : `${known} + unknown for ${unknownTasks} ${unknownTasks === 1 ? "task" : "tasks"}`;
  out(
    `  total: ${totals.tasksUpperBound ? "up to " : ""}${totals.tasks} tasks, ${totals.outputsUpperBound ? "up to " : ""}${totals.outputs} outputs, estimated cost ${cost}`,
  );
}

function plural(kind: string, count: number): string {
  const word = kind === "text" ? "text" : kind;
  return count === 1 || word === "text" ? word : `${word}s`;
}
