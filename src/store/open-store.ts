import type { Store } from "./port.js";
import { bind, type Executor } from "./program.js";
import { budgetOperations } from "./queries/budgets.js";
import { costReads } from "./queries/costs.js";
import { judgementOperations } from "./queries/judgements.js";
import { pruneOperations } from "./queries/prune.js";
import { publicationOperations } from "./queries/publications.js";
import { failuresOf, reportOrderOf, reportReads, reportRows } from "./queries/reports.js";
import { reviewOperations } from "./queries/reviews.js";
import { rowSourceOperations } from "./queries/row-sources.js";
import { statusReads } from "./queries/run-status.js";
import { runOperations } from "./queries/runs.js";
import { scheduleOperations } from "./queries/schedules.js";
import { taskReads } from "./queries/tasks.js";
import { viewTokenOperations } from "./queries/view-tokens.js";
import { viewReads } from "./queries/views.js";
import { outputTransitions } from "./transitions/outputs.js";
import { pollRounds } from "./transitions/poll-round.js";
import { recordings } from "./transitions/recording.js";
import { submitTransitions } from "./transitions/submit.js";
import { waysBack } from "./transitions/ways-back.js";

/** What an adapter keeps its own way: the learned submit rate, giving back space, closing. */
export type AdapterOwn = Pick<Store, "learnedRate" | "saveLearnedRate" | "reclaimSpace" | "close">;

/** The store port, built once from the programs, run by an adapter's executor. */
export function storeOf(executor: Executor, own: AdapterOwn): Store {
  return {
    ...own,
    ...bind(executor, runOperations),
    ...bind(executor, rowSourceOperations),
    ...bind(executor, taskReads),
    ...bind(executor, recordings),
    ...bind(executor, submitTransitions),
    ...bind(executor, pollRounds),
    ...bind(executor, outputTransitions),
    ...bind(executor, waysBack),
    ...bind(executor, reportReads),
    ...bind(executor, viewReads),
    ...bind(executor, statusReads),
    ...bind(executor, pruneOperations),
    ...bind(executor, costReads),
    ...bind(executor, budgetOperations),
    ...bind(executor, reviewOperations),
    ...bind(executor, publicationOperations),
    ...bind(executor, judgementOperations),
    ...bind(executor, scheduleOperations),
    ...bind(executor, viewTokenOperations),
    reportRows: (of) => reportRows(executor, of),
    reportOrderOf: (scope) => reportOrderOf(executor, scope),
    failuresOf: (scope) => failuresOf(executor, scope),
  };
}
