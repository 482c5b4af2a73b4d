import { CLAIM_OWNER } from "../core/process.js";
import type { CheckedJob } from "../families/index.js";
import {
  type NewTask,
  type OutputRow,
  type Store,
  type TaskRow,
  TaskState,
} from "../store/index.js";
import {
  type DependantRule,
  dependantRules,
  estimateDependants,
  expectedOutputsOf,
} from "./expected.js";
import { factsOf, placementOf } from "./placement.js";
import type { Plan, PlanGroup } from "./plan.js";
import { emptyCounts, type StatusCounts, statusOf, TaskStatus } from "./status.js";
import { supersededOutputs } from "./supersede.js";
import { dependantsOfOutputs } from "./tasks.js";

/**
 * A plan against the store, like `terraform plan`: what a run would do with each task — submit
 * and pay (new), nothing (done), poll or fetch (in flight), leave for `gwrun retry` (failed,
 * expired) — by the engine's own decision (`placementOf`), and the cost of only what is new.
 * `from:` jobs: the dependants of an upstream with recorded outputs are keyed as the run would
 * key them and looked up; those of an upstream without outputs yet are counted from its
 * expected outputs.
 */

/** A task a run records at its start, with what the run would do with it. */
export interface PlannedTask extends NewTask {
  status: TaskStatus;
}

export interface GroupDiff extends PlanGroup {
  /** Its tasks by status; dependants not recorded yet are counted from expected outputs. */
  status: StatusCounts;
  /** False when `status` holds upper bounds (dependants of a variable output count). */
  statusExact: boolean;
  /** Sum of the stated prices of its new tasks. */
  newCost: number;
  /** New tasks whose price neither `prices:` nor the spec states. */
  newWithUnknownCost: number;
  /** Outputs in the folder whose label a new task takes: they stay, the new ones get a name of their own. */
  supersedes: number;
  /** Done tasks whose files lie in another output folder only: delivered into this one, unpaid. */
  delivers: number;
}

/** A done task whose files are gone: which, and what a run does (fetch them again, or redo it). */
export interface MissingFiles {
  label: string;
  files: string[];
  action: "download" | "redo";
}

export interface PlanDiff extends Omit<Plan, "groups" | "totals" | "tasks"> {
  groups: GroupDiff[];
  totals: Plan["totals"] & {
    status: StatusCounts;
    statusUpperBound: boolean;
    /** Sum of the known prices of the new tasks: what a run would pay. */
    newCost: number;
    /** New tasks whose price neither `prices:` nor the spec states. */
    newWithUnknownCost: number;
  };
  /** The rows `gwrun run` would record, each with its status. */
  tasks: PlannedTask[];
  /** Done tasks whose files are gone from disk. */
  missing: MissingFiles[];
}

/** What `diffPlan` reads of the store. */
export type PlanStore = Pick<
  Store,
  "tasksByKey" | "outputsOf" | "copiesOf" | "currentTasksOf" | "dependantsOf" | "publicationsOf"
>;

export interface DiffOptions {
  /** ms: links expire against it. */
  now: number;
  /** `--force`: tasks done are redone (new). */
  force: boolean;
  /** `from:` jobs by the job they follow (`dependantTemplates`). */
  templates: ReadonlyMap<string, readonly CheckedJob[]>;
  /** The run's output folder (absolute): where its files belong. */
  outputDir: string;
  /** The manifest's `output.publish` targets (URLs): a file published to each is done. */
  publishedTo?: readonly string[];
}

/**
 * Gives every task of `plan` its status against `store` (undefined: no state database, so
 * everything is new), counts them per job with the cost of the new ones. Reads only.
 */
export async function diffPlan(
  plan: Plan,
  store: PlanStore | undefined,
  options: DiffOptions,
): Promise<PlanDiff> {
  const context: Context = {
    store,
    options,
    rules: dependantRules(options.templates),
    groups: new Map(
      plan.groups.map((group) => [
        group.job,
        {
          ...group,
          status: emptyCounts(),
          statusExact: true,
          newCost: 0,
          newWithUnknownCost: 0,
          supersedes: 0,
          delivers: 0,
        },
      ]),
    ),
    outputs: new Map(),
    missing: [],
  };
  const recorded = await recordedTasks(context, plan.tasks);
  const tasks: PlannedTask[] = [];
  let level: Upstream[] = [];
  for (const task of plan.tasks) {
    const row = recorded.get(task.key);
    const status = row === undefined ? TaskStatus.New : await statusOfRow(context, row);
    tasks.push({ ...task, status });
    count(context, task.jobId, status, task.estimatedCost, 1, true);
    // Only upstreams of `from:` jobs lead anywhere down a chain.
    if (context.options.templates.has(task.jobId)) level.push({ task, row, status });
  }
  // Down the chains of `from:` jobs, one step at a time; a chain is no longer than the jobs.
  for (let depth = 0; level.length > 0 && depth <= context.groups.size; depth++)
    level = await nextLevel(context, level);
  const groups = [...context.groups.values()];
  for (const group of groups) group.newCost = round(group.newCost);
  if (store !== undefined)
    for (const [job, n] of await supersededOutputs(tasks, store, options.outputDir)) {
      const group = context.groups.get(job);
      if (group !== undefined) group.supersedes = n;
    }
  const status = emptyCounts();
  for (const group of groups)
    for (const key of Object.values(TaskStatus)) status[key] += group.status[key];
  return {
    ...plan,
    groups,
    totals: {
      ...plan.totals,
      status,
      statusUpperBound: groups.some((group) => !group.statusExact),
      newCost: round(groups.reduce((sum, group) => sum + group.newCost, 0)),
      newWithUnknownCost: groups.reduce((sum, group) => sum + group.newWithUnknownCost, 0),
    },
    tasks,
    missing: context.missing,
  };
}

interface Context {
  store: PlanStore | undefined;
  options: DiffOptions;
  /** What each `from:` job makes per upstream output. */
  rules: DependantRule[];
  groups: Map<string, GroupDiff>;
  /** Each task's outputs, read once (the status and the dependants both need them). */
  outputs: Map<string, Promise<OutputRow[]>>;
  missing: MissingFiles[];
}

/** A task whose dependants come next: its row when recorded. */
interface Upstream {
  task: NewTask;
  row: TaskRow | undefined;
  status: TaskStatus;
}

/** The dependants of one level of upstreams: keyed and looked up, or counted from estimates. */
async function nextLevel(context: Context, level: readonly Upstream[]): Promise<Upstream[]> {
  const expected: { task: NewTask; problem: string | null }[] = [];
  for (const upstream of level) {
    const templates = context.options.templates.get(upstream.task.jobId);
    if (templates === undefined) continue;
    if (upstream.status === TaskStatus.Failed || upstream.status === TaskStatus.Expired) {
      // A run records its dependants skipped; `gwrun retry` of it brings them.
      estimate(context, upstream.task, TaskStatus.Failed);
      continue;
    }
    const outputs = upstream.row === undefined ? [] : await outputsOf(context, upstream.row.key);
    if (outputs.length === 0) estimate(context, upstream.task, TaskStatus.New);
    else expected.push(...keyedDependants(context, templates, upstream, outputs));
  }
  const recorded = await recordedTasks(
    context,
    expected.map(({ task }) => task),
  );
  const next: Upstream[] = [];
  for (const { task, problem } of expected) {
    const row = recorded.get(task.key);
    const status = await dependantStatus(context, row, problem);
    count(context, task.jobId, status, task.estimatedCost, 1, true);
    next.push({ task, row, status });
  }
  return next;
}

/**
 * The dependants a run records for an upstream's outputs, keyed as it keys them. Their inputs
 * are bound only far enough to see whether they can be sent: links of an upstream not done
 * yet will be fresh when the run binds them.
 */
function keyedDependants(
  context: Context,
  templates: readonly CheckedJob[],
  upstream: Upstream,
  outputs: readonly OutputRow[],
): { task: NewTask; problem: string | null }[] {
  // Only whether an input can be sent matters here, not its content.
  const vars = upstream.task.vars ?? {};
  const found = dependantsOfOutputs(
    templates,
    { ...upstream.task, vars },
    outputs,
    context.options.now,
    {
      dataUri: () => "",
      text: () => "",
    },
  );
  return upstream.status === TaskStatus.Done
    ? found
    : found.map(({ task }) => ({ task, problem: null }));
}

/** A dependant's status: as recorded, once its upstream's outputs are bound to it. */
async function dependantStatus(
  context: Context,
  row: TaskRow | undefined,
  problem: string | null,
): Promise<TaskStatus> {
  // A dependant whose input cannot be sent fails unsent.
  if (row === undefined) return problem === null ? TaskStatus.New : TaskStatus.Failed;
  // Skipped when its upstream failed once; the run brings it back pending with its input.
  const bound =
    row.state === TaskState.Skipped && row.placeholder === 0
      ? { ...row, state: TaskState.Pending }
      : row;
  if (problem !== null && bound.state === TaskState.Pending) return TaskStatus.Failed;
  return statusOfRow(context, bound);
}

/** Dependants no run has keyed yet, counted from the outputs their upstream should make. */
function estimate(context: Context, upstream: NewTask, status: TaskStatus): void {
  estimateDependants(
    context.rules,
    upstream.jobId,
    expectedOutputsOf(upstream),
    (rule, tasks, exact) => count(context, rule.job, status, rule.cost, tasks, exact),
    0,
    upstream.vars ?? {},
  );
}

function count(
  context: Context,
  jobId: string,
  status: TaskStatus,
  cost: number | null,
  tasks: number,
  exact: boolean,
): void {
  const group = context.groups.get(jobId);
  if (group === undefined) return;
  group.status[status] += tasks;
  if (!exact) group.statusExact = false;
  if (status !== TaskStatus.New) return;
  if (cost === null) group.newWithUnknownCost += tasks;
  else group.newCost += cost * tasks;
}

/**
 * The status of a recorded task: where the engine would place it, from the same facts; a
 * delivery and missing files are noted.
 */
async function statusOfRow(context: Context, row: TaskRow): Promise<TaskStatus> {
  const { now, force, outputDir, publishedTo } = context.options;
  const store = context.store;
  const facts = await factsOf(
    row,
    {
      outputs: () => outputsOf(context, row.key),
      copies: async () => (store === undefined ? [] : store.copiesOf(row.key)),
      publications: async () => (store === undefined ? [] : store.publicationsOf(row.key)),
    },
    // `gwrun run` always checks outputs and makes their thumbnails.
    { now, force, ownClaim: CLAIM_OWNER, checksRun: true, outputDir, publishedTo },
  );
  const placement = placementOf(row, facts);
  const missing = facts.found?.missing ?? [];
  if (missing.length > 0)
    context.missing.push({
      label: row.label,
      files: missing.map((file) => file.path ?? `output ${file.idx + 1}`),
      action: placement === "redownload" ? "download" : "redo",
    });
  const group = context.groups.get(row.job_id);
  if (placement === "deliver" && group !== undefined) group.delivers += 1;
  return statusOf(row, placement);
}

async function recordedTasks(
  context: Context,
  tasks: readonly NewTask[],
): Promise<Map<string, TaskRow>> {
  if (context.store === undefined || tasks.length === 0) return new Map();
  return context.store.tasksByKey(tasks.map((task) => task.key));
}

function outputsOf(context: Context, key: string): Promise<OutputRow[]> {
  let outputs = context.outputs.get(key);
  if (outputs === undefined) {
    outputs = context.store === undefined ? Promise.resolve([]) : context.store.outputsOf(key);
    context.outputs.set(key, outputs);
  }
  return outputs;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
