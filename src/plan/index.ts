/** Planning: a manifest checked end to end, task identity, and the plan as plain data. */
export { type CheckedManifest, checkManifestFile, checkManifestText } from "./check-manifest.js";
export { type TaskIdentity, taskKey } from "./identity.js";
export { describePipeline, type PipelineStep } from "./pipelines.js";
export { type Plan, type PlanGroup, type PlannedTask, planRun } from "./plan.js";
