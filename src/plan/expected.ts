import { type CheckedJob, FAMILIES, taskCost } from "../families/index.js";
import { FAILED_STATES, type TaskRow, TaskState } from "../store/index.js";
import { laneOf } from "./tasks.js";
import { matchesWhere } from "./upstream-vars.js";

/**
 * The tasks a run is still to make: the dependants (`from:` jobs) of upstream tasks that have
 * not made theirs yet, counted from the outputs each upstream should make, down the chain.
 * One rule for `gwrun plan`, `gwrun status` and the run's own reporters, so their totals agree
 * with the plan's from the start. A run keeps its rules (`DependantRule[]` as JSON) so that
 * `status` counts the same without the manifest.
 */

/** What one `from:` job (one combination of it) makes for each output of the job it follows. */
export interface DependantRule {
  job: string;
  /** The job it follows. */
  from: string;
  family: string | null;
  lane: string;
  /** Tasks per upstream output (its repeat). */
  tasks: number;
  /** Outputs each of its tasks should make. */
  outputs: { count: number; exact: boolean };
  /** The estimated cost of one of its tasks; null when no price is stated. */
  cost: number | null;
  /** `from.where`: the upstream tasks whose outputs it takes (absent: all). */
  where?: Record<string, unknown>;
  /** `from.selected`: it takes `best` outputs of each group of `of` upstream takes. */
  selected?: { best: number; of: number };
}

/**
 * Outputs an upstream makes, as the estimate reads them. `groups`: of how many groups of takes
 * (a selecting job's) they are — at the first step 1 for the take that counts its group and 0
 * for the others; below it, `tasks` (the upstream tasks) over the takes of a group.
 */
export interface UpstreamOutputs {
  count: number;
  exact: boolean;
  groups?: number;
  tasks?: number;
}

/** The rules of a run's `from:` jobs (`dependantTemplates`), one per combination. */
export function dependantRules(
  templates: ReadonlyMap<string, readonly CheckedJob[]>,
): DependantRule[] {
  return [...templates.entries()].flatMap(([from, list]) =>
    list.map(({ job, family, endpoint, body, price }) => ({
      job: job.spec.id,
      from,
      family: family?.id ?? null,
      lane: family?.lane ?? laneOf(endpoint),
      tasks: job.spec.repeat,
      outputs: family?.expectedOutputs(body) ?? { count: 1, exact: false },
      cost: taskCost(family, body, price),
      ...(job.spec.fromWhere === undefined ? {} : { where: job.spec.fromWhere }),
      ...(job.spec.fromSelected === undefined ? {} : { selected: job.spec.fromSelected }),
    })),
  );
}

/** The rules a run recorded; none for a run recorded before they were kept. */
export function recordedRules(json: string | null | undefined): DependantRule[] {
  if (json === null || json === undefined || json === "") return [];
  return JSON.parse(json) as DependantRule[];
}

/**
 * Visits every rule reached from `upstreamJob` whose `outputs` are not made yet, with the
 * tasks it will make: each rule's tasks per output, and theirs in turn down the chain.
 */
export function estimateDependants(
  rules: readonly DependantRule[],
  upstreamJob: string,
  outputs: UpstreamOutputs,
  visit: (rule: DependantRule, tasks: number, exact: boolean) => void,
  depth = 0,
  vars?: Record<string, unknown>,
): void {
  // A chain is no longer than its rules.
  if (depth > rules.length) return;
  for (const rule of rules) {
    if (rule.from !== upstreamJob) continue;
    // Below the first step the upstream's variables are not known: counted, as an upper bound.
    if (vars !== undefined && !matchesWhere(rule.where, vars)) continue;
    const tasks = tasksOfRule(rule, outputs);
    if (tasks === 0) continue;
    visit(rule, tasks, outputs.exact);
    estimateDependants(
      rules,
      rule.job,
      {
        tasks,
        count: rule.outputs.count * tasks,
        exact:
          outputs.exact &&
          rule.outputs.exact &&
          !rules.some((r) => r.from === rule.job && r.where !== undefined),
      },
      visit,
      depth + 1,
    );
  }
}

/** The tasks `rule` makes of an upstream's outputs: per output, or per group of its takes. */
function tasksOfRule(rule: DependantRule, outputs: UpstreamOutputs): number {
  if (rule.selected === undefined) return rule.tasks * outputs.count;
  const groups = outputs.groups ?? Math.ceil((outputs.tasks ?? 1) / Math.max(1, rule.selected.of));
  return rule.tasks * rule.selected.best * groups;
}

/** What one task should make, by its family (a passthrough request: one, maybe more). */
export function expectedOutputsOf(task: { family: string | null; request: string }): {
  count: number;
  exact: boolean;
} {
  const family = FAMILIES.find((candidate) => candidate.id === task.family);
  if (family === undefined) return { count: 1, exact: false };
  return family.expectedOutputs(JSON.parse(task.request) as Record<string, unknown>);
}

/** Tasks awaiting their upstream, of one job. */
export interface Awaiting {
  tasks: number;
  /** False when `tasks` is an upper bound (an upstream of a variable output count). */
  exact: boolean;
  family: string | null;
  lane: string;
}

/** What `awaitingUpstream` reads of a task. */
export type AwaitingRow = Pick<
  TaskRow,
  "key" | "job_id" | "family" | "request" | "state" | "upstream_key" | "placeholder" | "vars"
>;

/**
 * The tasks, by job, that upstreams among `rows` are still to make: an upstream that has not
 * failed and has no dependant recorded yet should make them. A stand-in waiting on a retried
 * upstream (a pending placeholder) is not one of its dependants.
 */
export function awaitingUpstream(
  rows: Iterable<AwaitingRow>,
  rules: readonly DependantRule[],
): Map<string, Awaiting> {
  const awaiting = new Map<string, Awaiting>();
  if (rules.length === 0) return awaiting;
  const followed = new Set(rules.map((rule) => rule.from));
  const counted = [...rows].filter(
    (row) => !(row.placeholder === 1 && row.state === TaskState.Pending),
  );
  // Per dependant job: a picture whose clip is made may still await its caption.
  const made = new Set(counted.map((row) => `${row.upstream_key}\u0000${row.job_id}`));
  // `from: { selected }` is per group of takes: made once any take of it has them; counted once.
  const byKey = new Map(counted.map((row) => [row.key, row]));
  const groupsMade = new Set<string>();
  for (const row of counted) {
    const upstream = row.upstream_key === null ? undefined : byKey.get(row.upstream_key);
    if (upstream !== undefined) groupsMade.add(`${groupOf(upstream)}\u0000${row.job_id}`);
  }
  const led = new Set<string>();
  for (const row of counted) {
    if (!followed.has(row.job_id) || FAILED_STATES.includes(row.state)) continue;
    const group = groupOf(row);
    const lead = !led.has(group);
    led.add(group);
    const toCome = rules.filter((rule) =>
      rule.from !== row.job_id
        ? true
        : rule.selected === undefined
          ? !made.has(`${row.key}\u0000${rule.job}`)
          : !groupsMade.has(`${group}\u0000${rule.job}`),
    );
    const vars =
      typeof row.vars === "string" ? (JSON.parse(row.vars) as Record<string, unknown>) : {};
    estimateDependants(
      toCome,
      row.job_id,
      { ...expectedOutputsOf(row), groups: lead ? 1 : 0 },
      (rule, tasks, exact) => {
        const job = awaiting.get(rule.job) ?? {
          tasks: 0,
          exact: true,
          family: rule.family,
          lane: rule.lane,
        };
        job.tasks += tasks;
        job.exact &&= exact;
        awaiting.set(rule.job, job);
      },
      0,
      vars,
    );
  }
  return awaiting;
}

/** The takes of one request: one job, one combination of variables, one upstream output. */
function groupOf(row: Pick<AwaitingRow, "job_id" | "vars" | "upstream_key">): string {
  return `${row.job_id}\u0000${row.vars ?? ""}\u0000${row.upstream_key ?? ""}`;
}

/** The sum of `awaitingUpstream`'s counts, and whether it is exact. */
export function awaitingTotal(awaiting: ReadonlyMap<string, Awaiting>): {
  tasks: number;
  exact: boolean;
} {
  let tasks = 0;
  let exact = true;
  for (const job of awaiting.values()) {
    tasks += job.tasks;
    exact &&= job.exact;
  }
  return { tasks, exact };
}
