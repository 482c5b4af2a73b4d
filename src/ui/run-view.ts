import path from "node:path";
import type { Estimated, RunEnd, StageCounts, StateCounts } from "../engine/index.js";
import type { Failure, RunState } from "./run-state.js";

/** What a screen shows of a run at one moment: plain data, derived from the state. */
export interface RunView {
  phase: "starting" | "running" | "stopping" | "finished";
  /** Why the run stops before its end, as it said so; null while it does not. */
  stopReason: string | null;
  runId: number | null;
  name: string;
  elapsedMs: number;
  /** Time left at the recent pace; null while nothing has finished yet. */
  etaMs: number | null;
  spent: number;
  paid: number;
  /** What the tasks this run paid for were estimated at; null until it has finished. */
  estimate: Estimated | null;
  maxCost: number | null;
  /** The gateway is the built-in simulator: stand-in outputs, no real money. */
  simulator: boolean;
  total: number;
  /** Of `total`, the tasks still to be made from upstream outputs (counted as queued). */
  awaiting: number;
  /** Tasks by stage; `running` leaves out those waiting for their first poll. */
  stages: StageCounts;
  /** Of `stages.failed`, the tasks skipped because their upstream failed. */
  skipped: number;
  /** Submitted tasks whose first poll is still to come. */
  waiting: number;
  /** Milliseconds until the next of those first polls; null while none waits. */
  firstPollMs: number | null;
  /** Average progress (0–100) of the running tasks. */
  runningAverage: number;
  /** Finished (done or failed) share of all tasks, 0–1. */
  fraction: number;
  groups: GroupView[];
  tasksPerMinute: number;
  /** Milliseconds until the gateway's rate limit lifts; 0 when it is not limiting. */
  rateLimitedMs: number;
  ratePerSecond: number | null;
  /** Milliseconds until a retry backoff ends; 0 when none is in force. */
  backoffMs: number;
  failures: readonly Failure[];
  /** Outputs of done tasks found gone: fetched again, or made again. */
  missing: { download: number; redo: number };
  /** Outputs made before into another folder, delivered into this run's. */
  delivered: number;
  /** Done tasks whose outputs were published to object storage, and those that failed to be. */
  published: { done: number; failed: number };
  /** Judges' verdicts this run, and the new takes their rejections made. */
  judged: { pass: number; fail: number; undecided: number; retakes: number };
  /** The most common failure reasons, most frequent first. */
  reasons: { reason: string; count: number }[];
  stopMessage: string | null;
  end: RunEnd | null;
  /** The run's tasks by store state once it has finished (empty before). */
  counts: StateCounts;
  /** The output folder, relative to the working folder when inside it. */
  outputDir: string | null;
  /** Where the gallery of the outputs is (`<output dir>/index.html`). */
  gallery: string | null;
}

export interface GroupView {
  job: string;
  family: string | null;
  tasks: number;
  done: number;
  /** Skipped ones included. */
  failed: number;
  skipped: number;
  active: number;
  fraction: number;
  /** Every task ended and none still to come from upstream. */
  finished: boolean;
}

const WINDOW_MS = 60_000;
const TOP_REASONS = 5;

/** The view of `state` at `now`; paths are shown relative to `cwd`. */
export function viewOf(state: RunState, now: number, cwd: string): RunView {
  const started = state.startedAt ?? now;
  const elapsedMs = (state.finishedAt ?? now) - started;
  const finished = state.stages.done + state.stages.failed;
  const tasksPerMinute = perMinute(state, now, elapsedMs);
  const remaining = Math.max(0, state.total - finished);
  const { waiting, firstPollMs } = waitingForFirstPoll(state, now);
  const running = state.stages.running - waiting;
  return {
    phase:
      state.end !== null
        ? "finished"
        : state.stopping !== null
          ? "stopping"
          : state.startedAt === null
            ? "starting"
            : "running",
    stopReason: state.stopping?.message ?? null,
    runId: state.runId,
    name: state.name,
    elapsedMs,
    etaMs:
      state.end !== null ? 0 : tasksPerMinute > 0 ? (remaining / tasksPerMinute) * 60_000 : null,
    spent: Math.round(state.spent * 1e6) / 1e6,
    paid: Math.round(state.paid * 1e6) / 1e6,
    estimate: state.estimate,
    maxCost: state.maxCost,
    simulator: state.simulator,
    total: state.total,
    awaiting: [...state.groups.values()].reduce((sum, group) => sum + group.awaiting, 0),
    stages: { ...state.stages, running },
    skipped: state.skipped,
    waiting,
    firstPollMs,
    // Tasks waiting for their first poll add nothing to the sum.
    runningAverage: running > 0 ? state.runningProgress / running : 0,
    fraction: state.total > 0 ? finished / state.total : 0,
    groups: [...state.groups.values()].map((group) => ({
      job: group.job,
      family: group.family,
      tasks: group.tasks,
      done: group.stages.done,
      failed: group.stages.failed,
      skipped: group.skipped,
      active:
        group.stages.submitting +
        group.stages.running +
        group.stages.downloading +
        group.stages.postprocessing,
      fraction: group.tasks > 0 ? (group.stages.done + group.stages.failed) / group.tasks : 0,
      finished: group.stages.done + group.stages.failed >= group.tasks && group.awaiting === 0,
    })),
    tasksPerMinute,
    rateLimitedMs: state.end === null ? Math.max(0, state.rateLimitedUntil - now) : 0,
    ratePerSecond: state.ratePerSecond,
    backoffMs: state.end === null ? Math.max(0, state.backoffUntil - now) : 0,
    failures: [...state.failures],
    missing: { ...state.missing },
    delivered: state.delivered,
    published: { ...state.published },
    judged: { ...state.judged },
    reasons: [...state.reasons.entries()]
      .map(([reason, count]) => ({ reason, count }))
      .sort((a, b) => b.count - a.count)
      .slice(0, TOP_REASONS),
    stopMessage: state.stopping?.message ?? null,
    end: state.end,
    counts: { ...state.counts },
    outputDir: state.outputDir === null ? null : shown(state.outputDir, cwd),
    gallery: state.outputDir === null ? null : shown(path.join(state.outputDir, "index.html"), cwd),
  };
}

/** Submitted tasks whose first poll is due after `now`, and how long until the next is. */
function waitingForFirstPoll(
  state: RunState,
  now: number,
): { waiting: number; firstPollMs: number | null } {
  // A finished run polls no more.
  if (state.end !== null) return { waiting: 0, firstPollMs: null };
  let waiting = 0;
  let next = Number.POSITIVE_INFINITY;
  for (const due of state.firstPolls.values()) {
    if (due <= now) continue;
    waiting += 1;
    next = Math.min(next, due);
  }
  return { waiting, firstPollMs: waiting > 0 ? next - now : null };
}

/** Jobs done per minute over the last minute (or since the start, when that is sooner). */
function perMinute(state: RunState, now: number, elapsedMs: number): number {
  const since = Math.floor((now - WINDOW_MS) / 1000);
  let done = 0;
  for (const [second, n] of state.doneBySecond) if (second > since) done += n;
  const windowMs = Math.min(WINDOW_MS, Math.max(elapsedMs, 1000));
  return (done * 60_000) / windowMs;
}

function shown(file: string, cwd: string): string {
  const relative = path.relative(cwd, file);
  return relative === "" ? "." : relative.startsWith("..") ? file : relative;
}
