import { CLAIM_OWNER } from "../core/process.js";
import type { CheckedJob } from "../families/index.js";
import { type NewTask, type OutputRow, type TaskRow, TaskState } from "../store/index.js";
import type {
  DiffOptions,
  GroupDiff,
  MissingFiles,
  PlanDiff,
  PlannedTask,
  PlanStore,
} from "./diff-types.js";
import {
  type DependantRule,
  dependantRules,
  estimateDependants,
  expectedOutputsOf,
} from "./expected.js";
import { factsOf, placementOf } from "./placement.js";
import type { Plan } from "./plan.js";
import { selectedOf } from "./selected-upstream.js";
import { planSpend } from "./spend.js";
import { emptyCounts, statusOf, TaskStatus } from "./status.js";
import { Supersession } from "./supersede.js";
import { dependantsOfOutputs } from "./tasks.js";

export type * from "./diff-types.js";

/**
 * A plan against the store, like `terraform plan`: what a run would do with each task — submit
 * and pay (new), nothing (done), poll or fetch (in flight), leave for `gwrun retry` (failed,
 * expired) — by the engine's own decision (`placementOf`), and the cost of only what is new.
 * `from:` jobs: the dependants of an upstream with recorded outputs are keyed as the run would
 * key them and looked up; those of an upstream without outputs yet are counted from its
 * expected outputs.
 */

/**
 * Gives every task of `plan` its status against `store` (undefined: no state database, so
 * everything is new), counts them per job with the cost of the new ones. Reads only.
 */
export async function diffPlan(
  plan: Plan,
  store: PlanStore | undefined,
  options: DiffOptions,
): Promise<PlanDiff> {
  const tasks: PlannedTask[] = [];
  const pages = { head: () => plan, pages: [plan.tasks] };
  const diff = await diffPlanPages(pages, store, options, (task) => tasks.push(task));
  return { ...diff, tasks };
}

/** A plan whose tasks come a page at a time; its head is whole once they have all come. */
export interface PlanPages {
  head(): Omit<Plan, "tasks">;
  pages: AsyncIterable<readonly NewTask[]> | Iterable<readonly NewTask[]>;
}

/**
 * `diffPlan` holding one page of tasks at a time: each task, with its status, goes to
 * `onTask` in the plan's order, and the diff's `tasks` is left empty.
 */
export async function diffPlanPages(
  plan: PlanPages,
  store: PlanStore | undefined,
  options: DiffOptions,
  onTask: (task: PlannedTask) => void,
): Promise<PlanDiff> {
  const context: Context = {
    store,
    options,
    rules: dependantRules(options.templates),
    groups: new Map(),
    outputs: new Map(),
    missing: [],
  };
  const supersession = store === undefined ? undefined : new Supersession(store, options.outputDir);
  // A chain of `from:` jobs is no longer than its dependant jobs.
  const longest = [...options.templates.values()].reduce((n, jobs) => n + jobs.length, 0);
  for await (const page of plan.pages) {
    const recorded = await recordedTasks(context, page);
    const planned: PlannedTask[] = [];
    let level: Upstream[] = [];
    for (const task of page) {
      const row = recorded.get(task.key);
      const status = row === undefined ? TaskStatus.New : await statusOfRow(context, row);
      planned.push({ ...task, status });
      count(context, task.jobId, status, task.estimatedCost, 1, true);
      // Only upstreams of `from:` jobs lead anywhere down a chain.
      if (options.templates.has(task.jobId)) level.push({ task, row, status });
    }
    // Down the chains of `from:` jobs, one step at a time.
    for (let depth = 0; level.length > 0 && depth <= longest; depth++)
      level = await nextLevel(context, level);
    await supersession?.add(planned);
    for (const task of planned) onTask(task);
    // Outputs are read once per page: the status and the dependants of a task both need them.
    context.outputs.clear();
  }
  const head = plan.head();
  const groups = head.groups.map((group): GroupDiff => {
    const tally = context.groups.get(group.job) ?? emptyTally();
    return {
      ...group,
      status: tally.status,
      statusExact: tally.statusExact,
      newCost: tally.newCost,
      newWithUnknownCost: tally.newWithUnknownCost,
      supersedes: supersession?.superseded.get(group.job) ?? 0,
      delivers: tally.delivers,
    };
  });
  for (const group of groups) group.newCost = round(group.newCost);
  const status = emptyCounts();
  for (const group of groups)
    for (const key of Object.values(TaskStatus)) status[key] += group.status[key];
  const { tasks: _tasks, ...rest } = head as Plan;
  const spend = planSpend(groups, head.unknownCost, head.maxCost);
  return {
    ...rest,
    groups,
    totals: {
      ...head.totals,
      status,
      statusUpperBound: groups.some((group) => !group.statusExact),
      newCost: round(groups.reduce((sum, group) => sum + group.newCost, 0)),
      newWithUnknownCost: groups.reduce((sum, group) => sum + group.newWithUnknownCost, 0),
      spend,
    },
    tasks: [],
    missing: context.missing,
  };
}

/** What the diff counts of a job's tasks. */
type Tally = Pick<
  GroupDiff,
  "status" | "statusExact" | "newCost" | "newWithUnknownCost" | "delivers"
>;

function emptyTally(): Tally {
  return {
    status: emptyCounts(),
    statusExact: true,
    newCost: 0,
    newWithUnknownCost: 0,
    delivers: 0,
  };
}

function tallyOf(context: Context, jobId: string): Tally {
  let tally = context.groups.get(jobId);
  if (tally === undefined) {
    tally = emptyTally();
    context.groups.set(jobId, tally);
  }
  return tally;
}

interface Context {
  store: PlanStore | undefined;
  options: DiffOptions;
  /** What each `from:` job makes per upstream output. */
  rules: DependantRule[];
  /** Per job id, made as its first task is counted. */
  groups: Map<string, Tally>;
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
    if (outputs.length === 0 || upstream.row === undefined) {
      estimate(context, upstream.task, TaskStatus.New);
      continue;
    }
    // `from: { selected }` takes what a decided group selects; an undecided one is counted.
    const chosen = templates.some((checked) => checked.job.spec.fromSelected)
      ? await selectedOf(context, upstream.row)
      : undefined;
    if (chosen === undefined) estimate(context, upstream.task, TaskStatus.New, true);
    expected.push(...keyedDependants(context, templates, upstream, outputs, chosen));
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
  selected: ReadonlySet<number> | undefined,
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
    selected,
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

/**
 * Dependants no run has keyed yet, counted from the outputs their upstream should make; those
 * of `from: { selected }` once per group of takes (by its first), never for a failed take.
 * `selectedOnly`: only those (its other dependants are keyed).
 */
function estimate(
  context: Context,
  upstream: NewTask,
  status: TaskStatus,
  selectedOnly = false,
): void {
  const lead = status !== TaskStatus.Failed && (upstream.repeatIndex ?? 0) === 0;
  estimateDependants(
    selectedOnly ? context.rules.filter((rule) => rule.selected !== undefined) : context.rules,
    upstream.jobId,
    { ...expectedOutputsOf(upstream), groups: lead ? 1 : 0 },
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
  const group = tallyOf(context, jobId);
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
  if (placement === "deliver") tallyOf(context, row.job_id).delivers += 1;
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
