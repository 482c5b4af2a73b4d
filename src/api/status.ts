import { scheduleOfRun, tickLabel } from "../manifest/index.js";
import { awaitingTotal, awaitingUpstream, recordedRules } from "../plan/index.js";
import type { Estimated, RunRow, Store } from "../store/index.js";
import { type FleetStatus, fleetStatus } from "./fleet-status.js";
import { type TextSummary, textSummaries } from "./text-summaries.js";

/**
 * How a run stands, read from the store: what `gwrun status --json` prints and the API's
 * `status` returns. Everything, never shortened: this is what scripts read.
 */

/** Links closer than this to expiry are warned about. */
const SOON_MS = 6 * 3_600_000;

/** One manifest job id of a run: its family and its tasks by state. */
export interface JobStatus {
  id: string;
  family: string;
  tasks: number;
  states: Record<string, number>;
  /** Tasks its upstreams are still to make (not in `tasks`); left out when none. */
  awaiting_upstream?: number;
}

export interface RunStatus {
  run: Pick<
    RunRow,
    | "id"
    | "name"
    | "status"
    | "exit_code"
    | "started_at"
    | "finished_at"
    | "output_dir"
    | "tick"
    | "stop_reason"
  > & {
    /** Its tick as its folders name it, in the schedule's zone; null for a run of no tick. */
    tick_label: string | null;
  };
  /** Tasks recorded so far. */
  tasks: number;
  /** Recorded tasks by state. */
  states: Record<string, number>;
  /** Tasks still to be made from upstream outputs. */
  awaiting_upstream: number;
  expected_tasks: number;
  /** False when `expected_tasks` is an upper bound. */
  expected_exact: boolean;
  jobs: JobStatus[];
  /** What this run paid itself. */
  spent: number;
  /** What its tasks cost in all, whichever run paid. */
  spent_in_all: number;
  /** What the tasks this run paid for were estimated at before they ran (`spent` is what was paid). */
  estimate: number;
  /** How: tasks counted at `unknown_cost`, and tasks of unknown price not counted. */
  estimated: Estimated;
  failures: { label: string; state: string; reason: string }[];
  /** Finished results not downloaded yet whose links expire within six hours. */
  expiring: { label: string; expiresAt: number }[];
  texts: TextSummary[];
  reviews: { label: string; output: number; decision: string; note: string | null }[];
  /** On a PostgreSQL store: its workers, pace and queue. */
  fleet?: FleetStatus;
}

/** The status of `run` as the store has it at `now`. */
export async function statusOf(store: Store, run: RunRow, now = Date.now()): Promise<RunStatus> {
  // Counts and short lists from the store: a run's tasks are read one by one only to count
  // the dependants still to come, and only when its manifest has `from:` jobs.
  const states: Record<string, number> = {};
  const byJob = new Map<string, JobStatus>();
  let recorded = 0;
  for (const { job_id: id, family, state, n } of await store.jobStatesOf(run.id)) {
    recorded += n;
    states[state] = (states[state] ?? 0) + n;
    const job = byJob.get(id) ?? { id, family: family ?? "passthrough", tasks: 0, states: {} };
    byJob.set(id, job);
    job.tasks += n;
    job.states[state] = (job.states[state] ?? 0) + n;
  }
  const failures: RunStatus["failures"] = [];
  for await (const failure of store.failuresOf({ run: run.id }))
    failures.push({
      label: failure.label,
      state: failure.state,
      reason: failure.reason ?? "no reason recorded",
    });
  const expiring = (await store.expiringOf(run.id, now + SOON_MS)).map((output) => ({
    label: output.label,
    expiresAt: output.expires_at,
  }));
  // What this run paid itself; what its tasks cost in all, whichever run paid.
  const { paid, spent } = await store.summaryOf({ run: run.id });
  const { estimate, atUnknownCost, unpriced } = await store.costReport({ run: run.id }, "job");
  // The dependants still to come, as the run counts them: the totals are the plan's.
  const rules = recordedRules(run.dependant_rules);
  const awaiting = awaitingUpstream(rules.length === 0 ? [] : await store.tasksOf(run.id), rules);
  for (const [id, { tasks: n, family }] of awaiting) {
    const job = byJob.get(id) ?? { id, family: family ?? "passthrough", tasks: 0, states: {} };
    byJob.set(id, { ...job, awaiting_upstream: n });
  }
  const toCome = awaitingTotal(awaiting);
  const reviews = (await store.labelledReviewsOf(run.id)).map((review) => ({
    label: review.label,
    output: review.idx,
    decision: review.decision,
    note: review.note,
  }));
  const fleet = await fleetStatus(store, run);
  return {
    run: {
      id: run.id,
      name: run.name,
      status: run.status,
      exit_code: run.exit_code,
      started_at: run.started_at,
      finished_at: run.finished_at,
      output_dir: run.output_dir,
      tick: run.tick,
      tick_label: tickLabelOf(run.tick, run.manifest_text, run.manifest_path),
      stop_reason: run.stop_reason,
    },
    tasks: recorded,
    states,
    awaiting_upstream: toCome.tasks,
    expected_tasks: recorded + toCome.tasks,
    expected_exact: toCome.exact,
    jobs: [...byJob.values()],
    spent: paid,
    spent_in_all: spent,
    estimate,
    estimated: { estimate, atUnknownCost, unpriced },
    failures,
    expiring,
    texts: await textSummaries(store, run.id),
    reviews,
    ...(fleet === undefined ? {} : { fleet }),
  };
}

/**
 * A run as `gwrun runs` lists it: its record without the manifest text, what it paid, and its
 * tick as its folders name it, in the schedule's zone (null when unscheduled).
 */
export type RunListing = Omit<RunRow, "manifest_text"> & {
  spent: number;
  tick_label: string | null;
};

/** The latest runs (at most `limit`), newest first, each with what it paid itself. */
export async function latestRuns(store: Store, limit = 50): Promise<RunListing[]> {
  const listed: RunListing[] = [];
  for (const { manifest_text: text, ...run } of await store.runs(limit))
    listed.push({
      ...run,
      spent: (await store.summaryOf({ run: run.id })).paid,
      tick_label: tickLabelOf(run.tick, text, run.manifest_path),
    });
  return listed;
}

/** A run's tick as `{tick}` names it, or its UTC instant when its schedule no longer reads. */
function tickLabelOf(tick: number | null, text: string, file: string): string | null {
  if (tick === null) return null;
  const schedule = scheduleOfRun(text, file);
  return schedule === undefined ? new Date(tick).toISOString() : tickLabel(tick, schedule);
}
