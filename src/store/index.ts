/**
 * The state database behind one port (`Store`): runs, tasks (table `jobs`), their outputs,
 * text answers, an event log, ticks and leases. All SQL lives here; SQLite is the default
 * adapter, PostgreSQL the one for a fleet.
 */

export type { BudgetPeriod, BudgetRow, BudgetStore } from "./budget-port.js";
export type {
  ClaimLimits,
  FleetClaim,
  FleetReceipt,
  FleetRunRow,
  FleetStore,
  LeaderLock,
  LoggedMove,
  PaceRowStatus,
  TaskWithOutputs,
  WorkerIdentity,
  WorkerRow,
} from "./fleet-port.js";
export type { JudgedOutputRow, JudgementRow } from "./judgement-rows.js";
export { adoptLegacyPaths } from "./legacy-paths.js";
export type { PaceRow, PaceState, PaceTurn, Successes } from "./pace-port.js";
export { openPgStore } from "./pg.js";
export type { FailDetail, PathRebase, Store, TaskPageOf } from "./port.js";
export type { PgStore } from "./postgres/open.js";
export { QUEUES } from "./postgres/queues.js";
export { hasPassword, pgStoreUnusable, redactUrl } from "./postgres/unusable.js";
export {
  inProject,
  locatedOutput,
  locatedRun,
  type ProjectPaths,
  projectPaths,
} from "./project-paths.js";
export {
  COST_GROUPINGS,
  type CostGroup,
  type CostGrouping,
  type CostReport,
  type CostScope,
  type Estimated,
  type JudgementAnswer,
  type Page,
  type PageRange,
  type ReportOrder,
  type ReportScope,
  TIMELINE_ORDERS,
  type TimelineOrder,
  type TimelinePage,
  type TimelineQuery,
  type ViewTokenRow,
} from "./report-port.js";
export type {
  FailureRow,
  GridRow,
  JudgeVerdict,
  NewRun,
  NewTask,
  OutputCopy,
  OutputRow,
  Publication,
  PublishedPart,
  ReportOutput,
  ReportRow,
  ReportSummary,
  ReportTask,
  ReviewDecision,
  ReviewRow,
  RowSource,
  RunNotice,
  RunRow,
  RunSummary,
  TakeRow,
  TaskRow,
  TextAnswerRow,
  TimelineRow,
} from "./rows.js";
export {
  type LeaseHolder,
  type LeaseRow,
  type TickRow,
  TickStatus,
  TickTrigger,
} from "./schedule-rows.js";
export type { StepRunner } from "./sqlite/executor.js";
export { inspectSqlite, type SqliteLibrary } from "./sqlite/library.js";
export { openStore, type SqliteStore, type SqliteStoreOptions } from "./sqlite/open.js";
export { storeUnusable } from "./sqlite/unusable.js";
export {
  FAILED_STATES,
  FINAL_STATES,
  IN_FLIGHT_STATES,
  PAID_STATES,
  RUNNING_STATES,
  TaskState,
  TRANSITIONS,
  UNDONE_STATES,
} from "./states.js";
export type { TaskEvent } from "./task-events.js";
export type {
  DownloadedFile,
  OutputCheck,
  OutputLink,
  PollOutcome,
  Receipt,
  RecordedDependant,
} from "./transition-inputs.js";
export { REFUSED } from "./transition-patches.js";
export { type TaskVariables, variablesOf } from "./variables.js";
