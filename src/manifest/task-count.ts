import type { Reporter } from "./report.js";
import type { JobSpec } from "./types.js";

/**
 * A matrix or `repeat` can name a million tasks in one line; such a manifest would validate
 * for minutes and then run for days. Expansions above the limit are refused at their node.
 */

/** Tasks one manifest may expand to unless `limits.max_tasks` says otherwise. */
export const DEFAULT_MAX_TASKS = 100_000;

/** Tasks one job makes per upstream output: its rows times its matrix combinations times its repeat. */
export function tasksOf(spec: JobSpec): number {
  const lists = Object.values(spec.matrix ?? {});
  const rows = spec.rows?.size ?? 1;
  return rows * lists.reduce((product, list) => product * list.length, 1) * spec.repeat;
}

/**
 * The jobs that fit under `limit` in manifest order; the job that crosses it is reported at
 * its matrix (or repeat) and neither it nor any later job is expanded.
 */
export function withinTaskLimit(
  specs: readonly JobSpec[],
  limit: number,
  reporter: Reporter,
): JobSpec[] {
  const fitting: JobSpec[] = [];
  let total = 0;
  for (const spec of specs) {
    const tasks = tasksOf(spec);
    total += tasks;
    if (total > limit) {
      const rows = spec.rows?.size;
      const combos = tasks / spec.repeat / (rows ?? 1);
      // Reported where the most tasks come from: the rows, the matrix, or the repeat.
      const node =
        rows !== undefined && rows >= combos && rows >= spec.repeat
          ? "rows"
          : combos > 1 || spec.repeat === 1
            ? "matrix"
            : "repeat";
      const parts = [
        ...(rows === undefined ? [] : [`${rows.toLocaleString("en")} rows`]),
        ...Object.values(spec.matrix ?? {}).map((list) => String(list.length)),
        ...(spec.repeat > 1 ? [`repeat ${spec.repeat}`] : []),
      ];
      reporter.at(
        ["jobs", spec.index, node],
        "too-many-tasks",
        `${spec.id} expands to ${tasks.toLocaleString("en")} tasks (${parts.join(" × ")}), taking the manifest to ${total.toLocaleString("en")}, above the limit of ${limit.toLocaleString("en")} tasks per manifest: split it, or raise limits.max_tasks`,
      );
      break;
    }
    fitting.push(spec);
  }
  return fitting;
}
