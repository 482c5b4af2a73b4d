import { terminalText } from "../core/text-filter.js";
import { type EngineEvent, emptyStages, type Stage } from "../engine/index.js";
import { groupOf, move } from "./run-state-moves.js";
import type { RunState } from "./run-state-types.js";

export type { Failure, GroupState, RunState } from "./run-state-types.js";

/** Failures kept for the screen. */
export const RECENT_FAILURES = 5;
const WINDOW_MS = 60_000;

export function createRunState(): RunState {
  return {
    runId: null,
    name: "",
    outputDir: null,
    maxCost: null,
    simulator: false,
    startedAt: null,
    finishedAt: null,
    total: 0,
    spent: 0,
    paid: 0,
    estimate: null,
    stages: emptyStages(),
    skipped: 0,
    runningProgress: 0,
    firstPolls: new Map(),
    groups: new Map(),
    tasks: new Map(),
    doneBySecond: new Map(),
    rateLimitedUntil: 0,
    ratePerSecond: null,
    backoffUntil: 0,
    failures: [],
    reasons: new Map(),
    missing: { download: 0, redo: 0 },
    delivered: 0,
    published: { done: 0, failed: 0 },
    judged: { pass: 0, fail: 0, undecided: 0, retakes: 0 },
    stopping: null,
    end: null,
    counts: {},
    unknownSubmits: 0,
    version: 0,
  };
}

const SKIPPED_FROM: readonly Stage[] = ["queued", "failed"];

/** The event of type `T`. */
type EventOf<T extends EngineEvent["type"]> = Extract<EngineEvent, { type: T }>;

/** What one event of type `T` does to the state. */
type Handler<T extends EngineEvent["type"]> = (
  state: RunState,
  event: EventOf<T>,
  now: number,
) => void;

/**
 * Every event's handler, by its type: a new event without one fails to compile here. Looked
 * up by own key only, so an unknown type (or a name like `toString`) changes nothing.
 */
const ON: { readonly [T in EngineEvent["type"]]: Handler<T> } = {
  "run:started": runStarted,
  "task:added": taskAdded,
  "task:submitting": (state, event) => {
    move(state, event.key, event.job, "submitting");
  },
  "task:submitted": (state, event, now) => {
    move(state, event.key, event.job, "running", 0);
    if (event.firstPollInMs !== undefined)
      state.firstPolls.set(event.key, now + event.firstPollInMs);
  },
  "task:progress": (state, event) => {
    move(state, event.key, event.job, "running", event.progress);
  },
  "text:progress": (state, event) => {
    const task = state.tasks.get(event.key);
    if (task !== undefined && task.stage === "submitting")
      move(state, event.key, task.job, "running");
  },
  "task:completed": (state, event) => {
    state.spent += event.cost ?? 0;
    state.paid += event.cost ?? 0;
    move(state, event.key, event.job, "downloading");
  },
  "output:downloaded": (state, event) => {
    move(state, event.key, event.job, "downloading");
  },
  "task:postprocessing": (state, event) => {
    move(state, event.key, event.job, "postprocessing");
  },
  "output:checked": () => {},
  "task:done": taskDone,
  "task:failed": taskFailed,
  "gateway:rate-limited": (state, event, now) => {
    state.rateLimitedUntil = Math.max(state.rateLimitedUntil, now + event.retryAfterMs);
    state.ratePerSecond = event.ratePerSecond;
  },
  "gateway:retry": (state, event, now) => {
    state.backoffUntil = Math.max(state.backoffUntil, now + event.delayMs);
  },
  "output:missing": (state, event) => {
    state.missing[event.action] += event.files.length;
  },
  "output:delivered": (state, event) => {
    state.delivered += event.outputs;
  },
  "output:published": (state, event) => {
    if (event.failed === null) state.published.done += 1;
    else state.published.failed += 1;
  },
  "task:judged": (state, event) => {
    state.judged[event.verdict] += 1;
    if (event.retake !== null) state.judged.retakes += 1;
  },
  "run:stopping": (state, event) => {
    state.stopping = { reason: event.reason, message: event.message };
  },
  "run:finished": runFinished,
};

/** Folds one event into the state. */
export function applyEvent(state: RunState, event: EngineEvent, now: number): void {
  state.version += 1;
  if (!Object.hasOwn(ON, event.type)) return;
  // The table is keyed by type, so this handler takes this event.
  (ON[event.type] as Handler<EngineEvent["type"]>)(state, event, now);
}

/** The run's name, budget and starting counts, by job id. */
function runStarted(state: RunState, event: EventOf<"run:started">, now: number): void {
  state.runId = event.runId;
  state.name = event.name;
  state.outputDir = event.outputDir;
  state.maxCost = event.maxCost;
  state.simulator = event.simulator;
  state.startedAt = now;
  state.total = event.tasks + event.awaiting;
  state.spent = event.spent;
  state.paid = event.paid;
  for (const group of event.groups) {
    const awaiting = group.awaiting ?? 0;
    state.groups.set(group.job, {
      job: group.job,
      family: group.family,
      tasks: group.tasks + awaiting,
      stages: { ...group.stages, queued: group.stages.queued + awaiting },
      skipped: group.skipped ?? 0,
      unseen: { ...group.stages },
      awaiting,
      runningProgress: 0,
    });
    for (const [stage, n] of Object.entries(group.stages)) state.stages[stage as Stage] += n;
    state.stages.queued += awaiting;
    state.skipped += group.skipped ?? 0;
  }
}

/** A task made from an upstream's output: one awaiting, or (beyond the plan) a new one. */
function taskAdded(state: RunState, event: EventOf<"task:added">): void {
  const group = groupOf(state, event.job, event.family);
  if (group.awaiting > 0) group.awaiting -= 1;
  else {
    state.total += 1;
    group.tasks += 1;
    group.stages.queued += 1;
    state.stages.queued += 1;
  }
  state.tasks.set(event.key, { job: event.job, stage: "queued", progress: 0 });
}

/** A task done: counted in its second, for the rate, and no longer kept. */
function taskDone(state: RunState, event: EventOf<"task:done">, now: number): void {
  move(state, event.key, event.job, "done");
  // Counted: a done task moves no more, so the screen keeps counts, not every task run.
  state.tasks.delete(event.key);
  const second = Math.floor(now / 1000);
  state.doneBySecond.set(second, (state.doneBySecond.get(second) ?? 0) + 1);
  for (const key of state.doneBySecond.keys())
    if (key <= second - WINDOW_MS / 1000) state.doneBySecond.delete(key);
}

/** A task failed or skipped, its reason kept for the screen and the summary. */
function taskFailed(state: RunState, event: EventOf<"task:failed">, now: number): void {
  const skipped = event.state === "skipped";
  // A skipped dependant never left the queue.
  const was = move(
    state,
    event.key,
    event.job,
    "failed",
    undefined,
    skipped ? SKIPPED_FROM : undefined,
  );
  if (skipped && was !== "failed") {
    state.skipped += 1;
    groupOf(state, event.job).skipped += 1;
  }
  // Shown on the terminal: a reason may carry a gateway's or a model's words.
  const reason = terminalText(event.reason);
  state.failures.push({ label: event.label, state: event.state, reason, at: now });
  if (state.failures.length > RECENT_FAILURES) state.failures.shift();
  state.reasons.set(reason, (state.reasons.get(reason) ?? 0) + 1);
}

/** The run's end and final totals. */
function runFinished(state: RunState, event: EventOf<"run:finished">, now: number): void {
  state.end = event.end;
  state.finishedAt = now;
  state.spent = event.spent;
  state.paid = event.paid;
  state.estimate = event.estimate;
  state.counts = { ...event.counts };
  state.unknownSubmits = event.unknownSubmits;
  // Run to its end, it made all it was to (an upstream may make fewer than its most).
  if (event.end === "done" || event.end === "failed") dropAwaiting(state);
}

/** Takes the tasks no upstream is to make any more out of every count. */
function dropAwaiting(state: RunState): void {
  for (const group of state.groups.values()) {
    state.total -= group.awaiting;
    state.stages.queued -= group.awaiting;
    group.tasks -= group.awaiting;
    group.stages.queued -= group.awaiting;
    group.awaiting = 0;
  }
}
