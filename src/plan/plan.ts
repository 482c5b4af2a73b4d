import { type CheckedJob, judgeRequest, ruleFor, taskCost } from "../families/index.js";
import type { JobChecks, JudgeSpec, ManifestSettings, RunMoment } from "../manifest/index.js";
import type { NewTask } from "../store/index.js";
import { type PipelineStep, pipelinesOf } from "./pipelines.js";
import { initialTasks, laneOf } from "./tasks.js";
import { matchesWhere } from "./upstream-vars.js";

/**
 * A plan is plain data: what a run would submit, grouped by job id, and the tasks it records.
 * `gwrun run` records `tasks`; `diffPlan` compares it with the store for `gwrun plan`.
 */
export interface Plan {
  version: 1;
  manifest: string;
  name: string;
  gateway: string;
  /** `limits.unknown_cost`: what each task of unknown price is counted at; null when unset. */
  unknownCost: number | null;
  /** `limits.max_cost`; null when unset. */
  maxCost: number | null;
  /** A scheduled manifest's tick this run belongs to (task keys include it); else null. */
  schedule: { cron: string; timezone: string; tick: string; label: string } | null;
  groups: PlanGroup[];
  totals: {
    tasks: number;
    /** Tasks counted in `tasks` as upper bounds (dependants of jobs with a variable output count). */
    tasksUpperBound: boolean;
    outputs: number;
    /** Outputs counted as upper bounds (sequential sets, fan-outs of those). */
    outputsUpperBound: boolean;
    /** Sum of the known prices. */
    cost: number;
    /** Tasks whose price neither `prices:` nor the spec states. */
    tasksWithUnknownCost: number;
  };
  /** Chains of `from:` jobs, first step first, with the tasks each step creates. */
  pipelines: PipelineStep[][];
  /**
   * The tasks a run records at its start, exactly as it records them: those whose request is
   * known now (`from:` jobs make theirs from upstream outputs, as they arrive).
   */
  tasks: NewTask[];
}

export interface PlanGroup {
  job: string;
  family: string | null;
  familyTitle: string;
  lane: string;
  endpoint: string;
  models: string[];
  from: string | null;
  expansions: number;
  repeat: number;
  tasks: number;
  /** For a `from:` job, the tasks made per upstream output (combinations × repeat); else null. */
  perUpstreamOutput: number | null;
  /** `from: { selected }`: only the outputs the upstream's `select:` picks (`best` of `of`). */
  fromSelected?: { best: number; of: number };
  /** False when `tasks` is an upper bound. */
  tasksExact: boolean;
  outputs: { kind: string; count: number; exact: boolean };
  /** Estimated cost of the group; null when no price is stated for its family. */
  cost: number | null;
  /** Its judge (`checks.judge`): one call per output, at this price (null: unknown). */
  judge: { model: string; each: number | null } | null;
  /** How many more takes of a task `on_fail: retry` may make at most (`retry.attempts` − 1). */
  retakesPerTask: number;
}

/**
 * Builds the plan of a validated manifest: the tasks a run records, and expected outputs and
 * estimated cost per job. With `keys: false` the task list stays empty (counting needs no hashing).
 */
export function planRun(
  manifestFile: string,
  settings: ManifestSettings,
  jobs: readonly CheckedJob[],
  options: { keys?: boolean; moment?: RunMoment } = {},
): Plan {
  const counter = new PlanCounter(upstreamsPicked(jobs.map(({ job }) => job.spec)));
  for (const checked of jobs) counter.add(checked);
  return {
    ...counter.plan(manifestFile, settings, options.moment),
    tasks: options.keys === false ? [] : initialTasks(jobs),
  };
}

/** The ids of the jobs a `from: { job, where }` picks outputs of. */
export function upstreamsPicked(
  specs: Iterable<{ from: string | undefined; fromWhere: unknown }>,
): Set<string> {
  const picked = new Set<string>();
  for (const spec of specs)
    if (spec.from !== undefined && spec.fromWhere !== undefined) picked.add(spec.from);
  return picked;
}

/**
 * The plan's groups and totals, counted one checked expansion at a time: it keeps a group per
 * job, and the variables of each combination only of the jobs a `from: { where }` picks from.
 */
export class PlanCounter {
  readonly #groups = new Map<string, PlanGroup>();
  // For `from: { job, where }`: each combination's outputs, with the variables that pick them.
  readonly #made = new Map<string, { vars: Record<string, unknown>; outputs: number }[]>();
  readonly #wheres = new Map<string, Record<string, unknown>>();
  readonly #judges = new Map<string, JudgeSpec>();

  /** `picked`: the jobs whose combinations a `from: { where }` picks (`upstreamsPicked`). */
  constructor(private readonly picked: ReadonlySet<string>) {}

  add(checked: CheckedJob): void {
    const groups = this.#groups;
    const { job, family, endpoint, body } = checked;
    const { spec } = job;
    let group = groups.get(spec.id);
    if (group === undefined) {
      group = {
        job: spec.id,
        family: family?.id ?? null,
        familyTitle: family?.title ?? "passthrough",
        lane: family?.lane ?? laneOf(endpoint),
        endpoint,
        models: [],
        from: spec.from ?? null,
        expansions: job.expansions,
        repeat: spec.repeat,
        tasks: 0,
        perUpstreamOutput: null,
        ...(spec.fromSelected === undefined ? {} : { fromSelected: spec.fromSelected }),
        tasksExact: true,
        outputs: {
          kind: family?.expectedOutputs(body).kind ?? laneOf(endpoint),
          count: 0,
          exact: family !== undefined,
        },
        cost: 0,
        judge:
          spec.checks?.judge === undefined ? null : { model: spec.checks.judge.model, each: null },
        retakesPerTask: retakes(spec.checks) ? 1 : 0,
      };
      groups.set(spec.id, group);
    }
    const model = typeof body.model === "string" ? body.model : "";
    if (!group.models.includes(model)) group.models.push(model);
    const expected = family?.expectedOutputs(body);
    const price = taskCost(family, body, checked.price);
    group.tasks += spec.repeat;
    group.outputs.count += (expected?.count ?? 1) * spec.repeat;
    if (this.picked.has(spec.id)) {
      const list = this.#made.get(spec.id) ?? [];
      list.push({ vars: job.vars, outputs: (expected?.count ?? 1) * spec.repeat });
      this.#made.set(spec.id, list);
    }
    if (spec.fromWhere !== undefined) this.#wheres.set(spec.id, spec.fromWhere);
    if (spec.checks?.judge !== undefined) this.#judges.set(spec.id, spec.checks.judge);
    if (expected !== undefined && !expected.exact) group.outputs.exact = false;
    group.cost = group.cost === null || price === null ? null : group.cost + price * spec.repeat;
  }

  /** The plan of what was counted, without its tasks (`initialTasks` makes them). */
  plan(manifestFile: string, settings: ManifestSettings, moment?: RunMoment): Omit<Plan, "tasks"> {
    const groups = this.#groups;
    const made = this.#made;
    const wheres = this.#wheres;
    scaleDependants(groups, (group, upstream) => {
      const where = wheres.get(group.job);
      const selected = group.fromSelected;
      // The best of each group of takes: one group per `of` upstream tasks (or per combination kept).
      if (selected !== undefined)
        return (
          selected.best *
          (where === undefined
            ? Math.ceil(upstream.tasks / Math.max(1, selected.of))
            : (made.get(upstream.job) ?? []).filter(({ vars }) => matchesWhere(where, vars)).length)
        );
      if (where === undefined) return upstream.outputs.count;
      // Only the outputs of the upstream's combinations that `where` keeps, times what makes each.
      const kept = (made.get(upstream.job) ?? [])
        .filter(({ vars }) => matchesWhere(where, vars))
        .reduce((sum, { outputs }) => sum + outputs, 0);
      return upstream.perUpstreamOutput === null
        ? kept
        : (kept * upstream.tasks) / Math.max(1, upstream.perUpstreamOutput);
    });
    const list = [...groups.values()];
    const totals = {
      tasks: list.reduce((sum, group) => sum + group.tasks, 0),
      tasksUpperBound: list.some((group) => !group.tasksExact),
      outputs: list.reduce((sum, group) => sum + group.outputs.count, 0),
      outputsUpperBound: list.some((group) => !group.outputs.exact),
      cost: round(list.reduce((sum, group) => sum + (group.cost ?? 0), 0)),
      tasksWithUnknownCost: list.reduce(
        (sum, group) => sum + (group.cost === null ? group.tasks : 0),
        0,
      ),
    };
    for (const group of list) {
      if (group.cost !== null) group.cost = round(group.cost);
      const judge = this.#judges.get(group.job);
      if (group.judge !== null && judge !== undefined)
        group.judge.each = judgePrice(judge, settings);
      // Marked 1 while counting: a take may be made again until `retry.attempts` are made.
      if (group.retakesPerTask > 0) group.retakesPerTask = Math.max(0, settings.retry.attempts - 1);
    }
    return {
      version: 1,
      manifest: manifestFile,
      name: settings.name,
      gateway: settings.gateway.baseUrl,
      unknownCost: settings.limits.unknownCost ?? null,
      maxCost: settings.limits.maxCost ?? null,
      schedule:
        settings.schedule === undefined || moment?.tickId === undefined
          ? null
          : {
              cron: settings.schedule.cron,
              timezone: settings.schedule.timezone,
              tick: moment.tickId,
              label: moment.tickLabel as string,
            },
      groups: list,
      totals,
      pipelines: pipelinesOf(list),
    };
  }
}

/**
 * A `from:` job runs once per upstream output, so its counts so far (per combination) are
 * multiplied by the upstream's outputs — in dependency order, since chains multiply.
 */
function scaleDependants(
  groups: Map<string, PlanGroup>,
  outputsFor: (group: PlanGroup, upstream: PlanGroup) => number,
): void {
  const done = new Set<string>();
  const visit = (group: PlanGroup, depth: number): void => {
    if (done.has(group.job) || depth > groups.size) return;
    const upstream = group.from === null ? undefined : groups.get(group.from);
    if (upstream !== undefined) {
      visit(upstream, depth + 1);
      group.perUpstreamOutput = group.tasks;
      const factor = outputsFor(group, upstream);
      group.tasks *= factor;
      group.outputs.count *= factor;
      if (group.cost !== null) group.cost *= factor;
      if (!upstream.outputs.exact || !upstream.tasksExact) {
        group.tasksExact = false;
        group.outputs.exact = false;
      }
    }
    done.add(group.job);
  };
  for (const group of groups.values()) visit(group, 0);
}

/** Whether a failed check (or the judge's "no") makes a new take: `on_fail: retry`. */
function retakes(checks: JobChecks | undefined): boolean {
  return checks?.on_fail === "retry" || checks?.judge?.on_fail === "retry";
}

/**
 * What one judge call costs at most by `prices:`: its question as written and the most it may
 * answer (the pictures' own tokens are the gateway's to count); null without a price.
 */
function judgePrice(judge: JudgeSpec, settings: ManifestSettings): number | null {
  const { body } = judgeRequest(judge, judge.ask, []);
  return taskCost(undefined, body, ruleFor(settings.prices, body));
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
