/**
 * The run: submits, polls, downloads and checks the tasks of a plan, recording every step.
 *
 * Glossary — the words the code uses:
 * - run: one execution of a manifest (`gwrun run`, `resume`, `retry`, a scheduled tick),
 *   recorded in the store with a snapshot of the manifest.
 * - job: an entry of the manifest's `jobs:` list, by its `id`; it expands (matrix, repeat,
 *   `from:` upstream outputs) into tasks.
 * - task: one request sent once to the gateway, recorded under its key; the gateway names
 *   its task by a task id. A task's row is a `TaskRow` (table `jobs`).
 * - key: the sha256 of a task's canonical request plus its repeat index (and tick).
 * - label: a task's readable name, `<job>-e<combination>-r<repeat>`; it names its files.
 * - lane: image, video or text, by endpoint; in-flight caps are per lane.
 * - output: one file a task made (a picture, a clip, a text), with its link and checks.
 * - tick: one due time of a scheduled manifest; each tick is a run of its own.
 */

export {
  Admission,
  BUDGET_ADVICE,
  budgetStopMessage,
  capacityLane,
  SUBMIT_CONCURRENCY,
} from "./admission.js";
export { batched } from "./batch.js";
export {
  type Claim,
  type ClaimRefusal,
  type DownloadCaps,
  type EngineOptions,
  type Estimated,
  openRunContext,
  publish,
  type RunContext,
  type RunParts,
  type RunResult,
  runResult,
  type TaskWrites,
  taskWrites,
} from "./context.js";
export { startDependants } from "./dependants.js";
export { downloadOutputs } from "./download.js";
export { Engine } from "./engine.js";
export type {
  Emit,
  EngineEvent,
  JobGroup,
  RunEnd,
  Stage,
  StageCounts,
  StateCounts,
} from "./events.js";
export { emptyStages } from "./job-groups.js";
export { nextStep } from "./next-step.js";
export { type Pace, QueryRule } from "./pace.js";
export { budgetWarnings, periodStop } from "./period-budgets.js";
export { Poller, pollOutcome } from "./poll.js";
export { isStuckReason } from "./poll-trouble.js";
export type { OutputVerdict, PostProcess } from "./post-process.js";
export type { OutputPublisher } from "./published.js";
export { EXIT_BY_END, STATUS_BY_END, sendsAdmitted } from "./run-end.js";
export {
  type NotifyOptions,
  notifyRunEnd,
  OUTCOME_BY_END,
  type RunEndNote,
  runEndNote,
} from "./run-notify.js";
export { RunStart, startRun } from "./run-start.js";
export {
  afterDownload,
  afterSend,
  finishDownloaded,
  pollRound,
} from "./steps.js";
export { classifySubmitFailure, sendTask } from "./submit.js";
export { type TakenOn, takeOnTask, waitsForUpstream } from "./take-on.js";
