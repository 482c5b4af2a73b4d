/**
 * The `gwrun` package: the functions behind the command line, for Node programs.
 * docs/api.md describes each, its options and results, and the events a run tells.
 */

export {
  type CostOutcome,
  cost,
  diagnosticText,
  EXIT_CODE_MEANINGS,
  ExitCode,
  type JobStatus,
  type LoadedManifest,
  loadManifest,
  type ManifestOptions,
  openStore,
  type PlanOptions,
  type PlanOutcome,
  plan,
  type RecordReader,
  type RetryOptions,
  type RunEvent,
  RunHandle,
  type RunListing,
  type RunOptions,
  type RunOutcome,
  type RunStatus,
  resume,
  retry,
  run,
  runs,
  type StoreOptions,
  status,
  type Validation,
  validate,
} from "./api/index.js";
export { ErrorCode, GwError } from "./core/errors.js";
export type { EngineEvent, RunEnd, RunResult } from "./engine/index.js";
export type { Diagnostic } from "./manifest/index.js";
export type { PlanDiff } from "./plan/index.js";
export type { OutputRow, ReviewRow, RunRow, TaskRow } from "./store/index.js";
