/** Manifests: YAML text → checked settings and expanded jobs, with positions for every problem. */

export { LabelCheck } from "./check-labels.js";
export {
  type Diagnostic,
  diagnosticAt,
  formatDiagnostic,
  sortDiagnostics,
} from "./diagnostics.js";
export { type ExpandedManifest, expandManifest, INPUT_PLACEHOLDERS } from "./expand.js";
export {
  fileGlobsOf,
  filesMatching,
  filesToProbe,
  type MatchedFile,
  mediaKindOf,
  staticBase,
} from "./file-rows.js";
export { templateNames } from "./interpolate.js";
export { jobPath } from "./job-path.js";
export { dependantLabel, expansionLabel, taskLabel } from "./labels.js";
export { loadManifest, parseManifest } from "./load.js";
export {
  MOMENT_NAMES,
  outputDirOf,
  outputDirTemplate,
  type RunMoment,
  runMoment,
} from "./moment.js";
export { notifyTargetsOf } from "./notify.js";
export { framed, type LoadedPrices } from "./prices.js";
export {
  type FolderNames,
  type PublishTarget,
  parsePublishTarget,
  publishTargetsOf,
  publishTargetsOfRun,
} from "./publish.js";
export { renditionSettingsOf } from "./renditions-of-run.js";
export type { Rendition } from "./renditions-schema.js";
export { Reporter } from "./report.js";
export {
  checkRequestSecrets,
  concealInDiagnostics,
  concealSecrets,
  SecretCheck,
} from "./request-secrets.js";
export type { FetchedRows, FileMedia, RowSet, RowsBody, RowsFormat } from "./row-types.js";
export { reportAtRow, rowFieldIn } from "./rows.js";
export { scheduleOfRun } from "./schedule-of-run.js";
export { MAX_JOB_ID, manifestSchema, NOTIFY_OUTCOMES, RUNNER_KEYS } from "./schema.js";
export { hasMaskedKey, maskLiteralKey, resolvedManifest } from "./secrets.js";
export {
  type Candidate,
  type Decision,
  type GroupSelection,
  groupSelection,
  selectBest,
  selectedByTask,
  selectionId,
  type TakeRow,
} from "./select-best.js";
export type { SelectSpec } from "./select-schema.js";
export { isSimulator, whySimulator } from "./simulator.js";
export { ManifestSource } from "./source.js";
export {
  dueTick,
  isTimeZone,
  latestTick,
  nextTick,
  nextTicks,
  type Schedule,
  tickLabel,
  ticksBetween,
} from "./ticks.js";
export type {
  ExpandedJob,
  JobChecks,
  JobSpec,
  JudgePass,
  JudgeSpec,
  ManifestSettings,
  NotifyTarget,
  PriceRule,
  PriceTable,
} from "./types.js";
export { parseDuration, parseRate, perSecond, type Rate } from "./units.js";
export { rowsBodiesOf, rowsFormatOf, shownRowsUrl } from "./url-rows.js";
export { rowsUrlsToFetch } from "./url-rows-wanted.js";
