import { canonicalJson, sha256 } from "../core/hash.js";
import { type CheckedJob, taskCost } from "../families/index.js";
import { dependantLabel, taskLabel } from "../manifest/index.js";
import type { NewTask, OutputRow } from "../store/index.js";
import { bindInputs, type UpstreamOutput } from "./bind-inputs.js";
import { taskKey } from "./identity.js";
import { keepTwinsApart, TakenKeys } from "./twins.js";
import { matchesWhere } from "./upstream-vars.js";

/**
 * From checked manifest jobs to the tasks a run records: one per combination × repeat, each
 * with a label that names its files. `from:` jobs become templates, made into tasks once per
 * upstream output when it is on disk.
 */

/** Job id, plus the combination and repeat when there are several: `styles-e3-r2`. */
export function labelOf(checked: CheckedJob, repeatIndex: number): string {
  return taskLabel(checked.job, repeatIndex);
}

/** The lane of an endpoint, for jobs without a family (passthrough, text). */
export function laneOf(endpoint: string): "image" | "video" | "text" {
  if (endpoint.includes("/videos/")) return "video";
  if (endpoint.includes("/images/")) return "image";
  return "text";
}

/** How a task's key tells it from others sending its request (see `TaskIdentity`). */
interface Apart {
  identity?: Record<string, unknown>;
  twin?: string;
  upstream?: string;
}

function taskOf(
  checked: CheckedJob,
  body: Record<string, unknown>,
  repeatIndex: number,
  label: string,
  upstreamKey: string | null,
  apart: Apart = {},
): NewTask {
  return {
    key: taskKey({
      endpoint: checked.endpoint,
      body: apart.identity ?? body,
      repeatIndex,
      tick: checked.job.tick,
      twin: apart.twin,
      upstream: apart.upstream,
    }),
    jobId: checked.job.spec.id,
    label,
    family: checked.family?.id ?? null,
    lane: checked.family?.lane ?? laneOf(checked.endpoint),
    endpoint: checked.endpoint,
    request: JSON.stringify(body),
    upstreamKey,
    estimatedCost: taskCost(checked.family, body, checked.price),
    vars: checked.job.vars,
    repeatIndex,
  };
}

/**
 * The tasks of every job that does not wait for an upstream output, made one at a time: a
 * manifest of a million tasks holds the tasks, nothing more per task beside them.
 */
export function initialTasks(jobs: readonly CheckedJob[]): NewTask[] {
  const maker = new TaskMaker();
  return jobs.flatMap((checked) => maker.tasksOf(checked));
}

/**
 * `initialTasks` one checked expansion at a time (a job's expansions one after another): it
 * keeps the keys taken so far, to tell twins apart (twins.ts).
 */
export class TaskMaker {
  readonly #keys = new TakenKeys();

  /** The expansion's tasks, one per repeat; none for a job that waits for upstream outputs. */
  tasksOf(checked: CheckedJob): NewTask[] {
    const { spec } = checked.job;
    if (spec.from !== undefined) return [];
    const tasks: NewTask[] = [];
    for (let repeat = 0; repeat < spec.repeat; repeat++) {
      const label = labelOf(checked, repeat);
      let task = taskOf(checked, checked.body, repeat, label, null);
      const twin = this.#keys.twinOf(task);
      if (twin !== undefined) task = taskOf(checked, checked.body, repeat, label, null, { twin });
      this.#keys.take(task);
      tasks.push(task);
    }
    return tasks;
  }
}

/** `from:` jobs by the id of the job they follow. */
export function dependantTemplates(jobs: readonly CheckedJob[]): Map<string, CheckedJob[]> {
  const templates = new Map<string, CheckedJob[]>();
  for (const checked of jobs) {
    const from = checked.job.spec.from;
    if (from === undefined) continue;
    templates.set(from, [...(templates.get(from) ?? []), checked]);
  }
  return templates;
}

/** One dependant task for an upstream output, and why it cannot be sent (null when it can). */
export interface DependantTask {
  task: NewTask;
  problem: string | null;
}

/** The tasks for one upstream output: each template, each repeat, its inputs bound. */
export function dependantTasks(
  templates: readonly CheckedJob[],
  upstream: { key: string; label: string; outputIndex: number; outputs: number },
  output: UpstreamOutput,
): DependantTask[] {
  const kept = templates.filter((checked) =>
    matchesWhere(checked.job.spec.fromWhere, output.vars ?? {}),
  );
  const made = kept.flatMap((checked) => {
    const { body, problem } = bindInputs(checked, output);
    // The key names the upstream output, not its link: links change, the output does not.
    const stable = `gwrun-output:${upstream.key}/${upstream.outputIndex}`;
    const identity = bindInputs(checked, {
      label: upstream.label,
      kind: output.kind,
      url: stable,
      dataUri: () => stable,
      text: () => stable,
      vars: output.vars,
    }).body;
    // A request that does not show its output still is one task per output.
    const upstreamNamed = JSON.stringify(identity).includes(stable) ? undefined : stable;
    return Array.from({ length: checked.job.spec.repeat }, (_, repeat) => {
      const label = dependantLabel(
        labelOf(checked, repeat),
        upstream.label,
        upstream.outputIndex,
        upstream.outputs,
      );
      const make = (twin?: string) =>
        taskOf(checked, problem === null ? body : identity, repeat, label, upstream.key, {
          identity,
          twin,
          upstream: upstreamNamed,
        });
      return { task: make(), problem, asTwin: (twin: string) => ({ task: make(twin), problem }) };
    });
  });
  return keepTwinsApart(made).map(({ task, problem }) => ({ task, problem }));
}

/**
 * The dependant tasks of an upstream task's recorded outputs: each output bound as the input
 * (its link while it has not expired at `now`, else what `read` gives of its file). A
 * `from: { selected: true }` job takes only the outputs in `selected` (their indexes, once
 * the upstream's takes are decided; none before).
 */
export function dependantsOfOutputs(
  templates: readonly CheckedJob[],
  upstream: { key: string; label: string; vars: Record<string, unknown> },
  outputs: readonly OutputRow[],
  now: number,
  read: { dataUri(output: OutputRow): string; text(output: OutputRow): string },
  selected?: ReadonlySet<number>,
): DependantTask[] {
  const each = templates.filter((checked) => !checked.job.spec.fromSelected);
  return outputs.flatMap((output) =>
    dependantTasks(
      selected?.has(output.idx) === true ? templates : each,
      {
        key: upstream.key,
        label: upstream.label,
        outputIndex: output.idx,
        outputs: outputs.length,
      },
      {
        label: outputs.length > 1 ? `${upstream.label} (output ${output.idx + 1})` : upstream.label,
        kind: output.content_type?.startsWith("text/") === true ? "text" : "media",
        url:
          output.url !== null && (output.expires_at ?? Number.POSITIVE_INFINITY) > now
            ? output.url
            : null,
        dataUri: () => read.dataUri(output),
        text: () => read.text(output),
        vars: upstream.vars,
      },
    ),
  );
}

/**
 * Stand-ins for the dependants of a failed upstream: one per template and repeat (how many
 * outputs it would have made is unknown), and theirs in turn, recorded `skipped`. Their keys
 * name the failed upstream, so they never meet the real dependants of a retried one.
 */
export function standInsOf(
  templates: ReadonlyMap<string, readonly CheckedJob[]>,
  upstream: { key: string; label: string; jobId: string; vars?: Record<string, unknown> },
  depth = 0,
): NewTask[] {
  if (depth > templates.size) return [];
  return (
    (templates.get(upstream.jobId) ?? [])
      // A failed take is never selected: `from: { selected: true }` makes no stand-in for it.
      .filter(
        (checked) =>
          !checked.job.spec.fromSelected &&
          matchesWhere(checked.job.spec.fromWhere, upstream.vars ?? {}),
      )
      .flatMap((checked) =>
        Array.from({ length: checked.job.spec.repeat }, (_, repeat) => {
          const key = sha256(
            canonicalJson({
              skipped: upstream.key,
              job: checked.job.spec.id,
              expansion: checked.job.expansion,
              repeat,
            }),
          );
          const label = dependantLabel(labelOf(checked, repeat), upstream.label, 0, 1);
          const standIn: NewTask = {
            ...taskOf(checked, checked.body, repeat, label, upstream.key),
            key,
            placeholder: true,
          };
          const below = standInsOf(
            templates,
            { key, label, jobId: checked.job.spec.id, vars: checked.job.vars },
            depth + 1,
          );
          return [standIn, ...below];
        }),
      )
      .flat()
  );
}
