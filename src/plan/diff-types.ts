import type { CheckedJob } from "../families/index.js";
import type { NewTask, Store } from "../store/index.js";
import type { Plan, PlanGroup } from "./plan.js";
import type { StatusCounts, TaskStatus } from "./status.js";

/** What `gwrun plan` tells of a plan against the store (`diff.ts`). */

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

/**
 * What a run of the plan would spend, as `max_cost` counts it (`spend.ts`): the new tasks, the
 * judge calls of their outputs, and the retakes `on_fail: retry` may add.
 */
export interface PlanSpend {
  /** The new tasks; null when some price is unknown and no `unknown_cost` counts it. */
  tasks: number | null;
  /** Judge calls, one per new output of a judged job, and what each costs (null: unknown). */
  judge: { calls: number; each: number | null; cost: number | null } | null;
  /** At most this many more takes by `on_fail: retry`, and what they would cost at most. */
  retakes: { upTo: number; cost: number | null } | null;
  /** The range: every check passing first time, and every take retried. Null: unknown. */
  low: number | null;
  high: number | null;
  budget: PlanBudget | null;
}

/** Where `max_cost` stands against the range. */
export interface PlanBudget {
  maxCost: number;
  /**
   * `within`: the whole range fits; `retakes`: the first takes fit, retakes may reach it;
   * `stops`: the run stops when it is spent; `unknown`: prices are unknown.
   */
  verdict: "within" | "retakes" | "stops" | "unknown";
  /** With `stops`: about how many of the new tasks are sent before it (in the plan's order). */
  stopsAfter: number | null;
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
    /** What a run would spend on them, judge calls and retakes included, against `max_cost`. */
    spend: PlanSpend;
  };
  /** The rows `gwrun run` would record, each with its status. */
  tasks: PlannedTask[];
  /** Done tasks whose files are gone from disk. */
  missing: MissingFiles[];
  /**
   * Each `output.publish` target, as this run would resolve it, and why a run would refuse
   * it (another output folder's run publishes there); null when it may publish.
   */
  publish?: { target: string; refused: string | null }[];
  /**
   * Each budget across runs (`gwrun budget`) that holds for the run's gateway: what its period
   * has left, and where the estimate stands against that (as `spend.budget` against max_cost).
   */
  periods?: PeriodPlan[];
}

/** A budget across runs as a plan sees it. */
export interface PeriodPlan {
  /** The gateway's base URL; "" for every gateway. */
  gateway: string;
  per: "day" | "week" | "month";
  limit: number;
  spent: number;
  remaining: number;
  timezone: string;
  resets_at: string;
  budget: PlanBudget;
}

/** What `diffPlan` reads of the store. */
export type PlanStore = Pick<
  Store,
  | "tasksByKey"
  | "outputsOf"
  | "copiesOf"
  | "currentTasksOf"
  | "dependantsOf"
  | "publicationsOf"
  | "takesOf"
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
