/**
 * Planning: a manifest checked end to end, task identity, the tasks a run records, the plan as
 * plain data, and the plan against the store (what a run would do with each task).
 */
export { bindInputs, type UpstreamOutput } from "./bind-inputs.js";
export {
  type DiffOptions,
  diffPlan,
  diffPlanPages,
  type GroupDiff,
  type PeriodPlan,
  type PlanBudget,
  type PlanDiff,
  type PlannedTask,
  type PlanPages,
  type PlanSpend,
  type PlanStore,
} from "./diff.js";
export {
  type Awaiting,
  type AwaitingRow,
  awaitingTotal,
  awaitingUpstream,
  type DependantRule,
  dependantRules,
  recordedRules,
} from "./expected.js";
export { type TaskIdentity, taskKey } from "./identity.js";
export { describePipeline, type PipelineStep } from "./pipelines.js";
export {
  type FilePlace,
  type FoundFiles,
  factsOf,
  type Placement,
  type PlacementFacts,
  placementOf,
} from "./placement.js";
export { type Plan, PlanCounter, type PlanGroup, planRun, upstreamsPicked } from "./plan.js";
export { budgetOf, planSpend } from "./spend.js";
export { type StatusCounts, TaskStatus } from "./status.js";
export { nextTakes, rootLabel } from "./takes.js";
export { TASK_PAGE, taskPages } from "./task-pages.js";
export {
  type DependantTask,
  dependantsOfOutputs,
  dependantTasks,
  dependantTemplates,
  initialTasks,
  labelOf,
  laneOf,
  standInsOf,
  TaskMaker,
} from "./tasks.js";
