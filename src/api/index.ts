/**
 * What gwrun does, as functions: the package's API (`src/index.ts` exports its public part)
 * and what the command line calls, which only parses flags and prints.
 */

export {
  type BudgetSetting,
  type BudgetStanding,
  budgetStandings,
  budgetsFor,
  setBudget,
} from "./budget.js";
export { type CostOutcome, costOf } from "./cost.js";
export {
  type Executed,
  type ExecuteOptions,
  executeManifest,
  type RunFlags,
  type RunHooks,
  type Underway,
} from "./execute.js";
export { EXIT_CODE_MEANINGS, ExitCode } from "./exit-codes.js";
export { exportRunOutputs } from "./export-run.js";
export {
  type FleetStatus,
  type FleetWorkerStatus,
  fleetStatus,
  leads,
} from "./fleet-status.js";
export {
  cost,
  openStore,
  plan,
  type RecordReader,
  type RetryOptions,
  type RunOptions,
  resume,
  retry,
  run,
  runs,
  type StoreOptions,
  status,
} from "./functions.js";
export { type JudgeReport, judgeReportOf } from "./judge-report.js";
export {
  envOf,
  type LoadedManifest,
  loadManifest,
  type ManifestOptions,
  type Validation,
  validate,
} from "./manifest.js";
export { type PlanOptions, type PlanOutcome, planManifestAt } from "./plan.js";
export { bringApprovedHere, publishMissing } from "./publish.js";
export { type RawRequest, validateRawRequest } from "./raw-request.js";
export { type Decision, reviewedRun } from "./reviewed-run.js";
export { diagnosticText, type RunEvent, RunHandle, type RunOutcome } from "./run-handle.js";
export { type RetryChoice, resumeRunWith, retryRunWith, runManifestWith } from "./runs.js";
export {
  loadScheduled,
  runSchedules,
  type ScheduleDaemon,
  type ScheduleFlags,
  scheduleStore,
} from "./schedule.js";
export { type JobStatus, latestRuns, type RunListing, type RunStatus, statusOf } from "./status.js";
export {
  dbPath,
  defaultStore,
  findRun,
  isPostgres,
  migrateStore,
  openRecordAt,
  openStoreAt,
  projectFolder,
  projectOf,
  type StoreAt,
  type StoreFlags,
  storeAt,
  storeName,
  withExistingStore,
  withStore,
} from "./store.js";
export { type TextSummary, textSummaries } from "./text-summaries.js";
export {
  DEFAULT_SETTLE_MS,
  loadWatched,
  runWatch,
  type WatchDaemon,
  type Watched,
  type WatchFlags,
} from "./watch.js";
