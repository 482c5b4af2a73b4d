/** The run: queues, state transitions, budget, shutdown, resume. */
export { Engine, type EngineOptions, SUBMIT_CONCURRENCY } from "./engine.js";
export type {
  Emit,
  EngineEvent,
  JobGroup,
  RunEnd,
  Stage,
  StageCounts,
  StateCounts,
} from "./events.js";
export { partialDir, writeWhole } from "./files.js";
export { emptyStages } from "./job-groups.js";
export { dependantTemplates, initialJobs } from "./jobs.js";
export type { OutputVerdict, PostProcess } from "./post-process.js";
export { provenanceText } from "./provenance.js";
