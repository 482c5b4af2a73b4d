/** Planning: a manifest checked end to end, task identity, the tasks a run records, and the plan as plain data. */
export { bindInputs, type UpstreamOutput } from "./bind-inputs.js";
export { type CheckedManifest, checkManifestFile, checkManifestText } from "./check-manifest.js";
export { type TaskIdentity, taskKey } from "./identity.js";
export { describePipeline, type PipelineStep } from "./pipelines.js";
export { factsOf, type Placement, type PlacementFacts, placementOf } from "./placement.js";
export { type Plan, type PlanGroup, type PlannedTask, planRun } from "./plan.js";
export {
  type DependantTask,
  dependantTasks,
  dependantTemplates,
  initialTasks,
  labelOf,
  laneOf,
  standInsOf,
} from "./tasks.js";
