import { combinationAt, combinationCount } from "./expand-job.js";
import { hasTemplate } from "./interpolate.js";
import { jobPath } from "./job-path.js";
import { taskLabel } from "./labels.js";
import type { Reporter } from "./report.js";
import type { ExpandedJob } from "./types.js";

/** Collisions reported per job before the rest are counted. */
const SHOWN = 3;

/** What a collision names of the task that took a label first: not the whole expansion. */
type Named = Pick<ExpandedJob, "spec" | "row" | "vars" | "expansion">;

/**
 * The task that took a label first: its expansion's number when that tells its row and matrix
 * values (a matrix without templates), as a million labels of rows and variants are; else what
 * names it.
 */
type First = number | Named;

/**
 * A job's `label:` names its tasks' files, so no two of its tasks may share one: each
 * collision is an error at the label, naming the tasks (their rows and matrix values).
 */
export function checkLabels(jobs: readonly ExpandedJob[], reporter: Reporter): void {
  const check = new LabelCheck();
  for (const job of jobs) check.add(job);
  check.report(reporter);
}

/** `checkLabels` fed one expansion at a time: it keeps each label once, with whom it names. */
export class LabelCheck {
  readonly #byJob = new Map<ExpandedJob["spec"], Map<string, First>>();
  readonly #collisions = new Map<ExpandedJob["spec"], string[]>();
  /** Per job: whether an expansion's number tells its matrix values as they were rendered. */
  readonly #numbered = new Map<ExpandedJob["spec"], boolean>();

  add(job: ExpandedJob): void {
    if (job.label === undefined) return;
    const seen = this.#byJob.get(job.spec) ?? new Map<string, First>();
    this.#byJob.set(job.spec, seen);
    const label = taskLabel(job, 0);
    const first = seen.get(label);
    if (first === undefined) {
      const { spec, row, vars, expansion } = job;
      let numbered = this.#numbered.get(spec);
      if (numbered === undefined) {
        numbered = !hasTemplate(spec.matrix);
        this.#numbered.set(spec, numbered);
      }
      seen.set(label, numbered ? expansion : { spec, row, vars, expansion });
      return;
    }
    const firstNamed = typeof first === "number" ? namedBy(job.spec, first) : first;
    const list = this.#collisions.get(job.spec) ?? [];
    list.push(`"${label}" names both ${taskName(firstNamed)} and ${taskName(job)}`);
    this.#collisions.set(job.spec, list);
  }

  report(reporter: Reporter): void {
    for (const [spec, list] of this.#collisions) {
      const more = list.length > SHOWN ? `, and ${list.length - SHOWN} more` : "";
      reporter.at(
        ["label"],
        "label-collision",
        `label: ${list.slice(0, SHOWN).join("; ")}${more}; add a value that tells them apart (a row's id, a matrix key)`,
        {},
        jobPath(spec),
      );
    }
  }
}

/** The task of a job's expansion `expansion`: its row and matrix values, from its number. */
function namedBy(spec: ExpandedJob["spec"], expansion: number): Named {
  const combos = combinationCount(spec.matrix);
  const vars: Record<string, unknown> = {};
  for (const [key, index] of Object.entries(combinationAt(spec.matrix, expansion % combos)))
    vars[key] = spec.matrix?.[key]?.[index];
  const row = spec.rows === undefined ? undefined : Math.floor(expansion / combos);
  return { spec, row, vars, expansion };
}

/** A task as its author knows it: its row and matrix values. */
function taskName(job: Named): string {
  const record = job.row === undefined ? undefined : job.spec.rows?.record(job.row);
  const parts = record === undefined ? [] : [`row ${record + 1}`];
  for (const [key, value] of Object.entries(job.vars))
    if (key !== "row") parts.push(`${key}=${JSON.stringify(value)}`);
  return parts.length === 0 ? `expansion ${job.expansion + 1}` : `(${parts.join(", ")})`;
}
