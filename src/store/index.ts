/** The state database: runs, jobs, outputs, events. All SQL lives here. */

export { dropPlaceholders, rebindPending } from "./dependants.js";
export {
  acquireLease,
  deleteRun,
  deleteTicksBefore,
  filesOfRun,
  finishTick,
  type LeaseHolder,
  type LeaseRow,
  lastTickAt,
  leaseOf,
  recordTickNotRun,
  releaseLease,
  renewLease,
  runOfTick,
  scheduledRuns,
  startTick,
  type TickRow,
  TickStatus,
  TickTrigger,
  ticksOf,
  unfinishedTicks,
} from "./schedules.js";
export { FINAL_STATES, JobState, RUNNING_STATES, TRANSITIONS } from "./states.js";
export {
  type JobPatch,
  type JobRow,
  type NewJob,
  type OutputRow,
  type ReportJob,
  type ReportOutput,
  type ReportRow,
  type RunRow,
  Store,
} from "./store.js";
export {
  saveTextAnswer,
  type TextAnswerRow,
  textAnswer,
  textAnswersOf,
} from "./text-answers.js";
