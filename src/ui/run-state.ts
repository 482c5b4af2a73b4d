import { terminalText } from "../core/text-filter.js";
import { type EngineEvent, emptyStages, type Stage } from "../engine/index.js";
import type { GroupState, RunState } from "./run-state-types.js";

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

/**
 * Where a task may have come from when this is the first event heard of it (it was taken on
 * at the start in a stage counted only per job id): the likeliest stages first.
 */
const FROM: Readonly<Record<Stage, readonly Stage[]>> = {
  queued: ["queued"],
  submitting: ["queued", "done", "failed"],
  running: ["running", "queued"],
  downloading: ["downloading", "running", "submitting", "queued"],
  postprocessing: ["downloading", "running", "queued"],
  done: ["postprocessing", "downloading", "running", "submitting", "queued", "done"],
  failed: ["running", "downloading", "postprocessing", "submitting", "queued", "failed"],
};

const SKIPPED_FROM: readonly Stage[] = ["queued", "failed"];

/** Folds one event into the state. */
export function applyEvent(state: RunState, event: EngineEvent, now: number): void {
  state.version += 1;
  switch (event.type) {
    case "run:started":
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
      break;
    case "task:added": {
      const group = groupOf(state, event.job, event.family);
      if (group.awaiting > 0) group.awaiting -= 1;
      else {
        state.total += 1;
        group.tasks += 1;
        group.stages.queued += 1;
        state.stages.queued += 1;
      }
      state.tasks.set(event.key, { job: event.job, stage: "queued", progress: 0 });
      break;
    }
    case "task:submitting":
      move(state, event.key, event.job, "submitting");
      break;
    case "task:submitted":
      move(state, event.key, event.job, "running", 0);
      if (event.firstPollInMs !== undefined)
        state.firstPolls.set(event.key, now + event.firstPollInMs);
      break;
    case "task:progress":
      move(state, event.key, event.job, "running", event.progress);
      break;
    case "text:progress": {
      const task = state.tasks.get(event.key);
      if (task !== undefined && task.stage === "submitting")
        move(state, event.key, task.job, "running");
      break;
    }
    case "task:completed":
      state.spent += event.cost ?? 0;
      state.paid += event.cost ?? 0;
      move(state, event.key, event.job, "downloading");
      break;
    case "output:downloaded":
      move(state, event.key, event.job, "downloading");
      break;
    case "task:postprocessing":
      move(state, event.key, event.job, "postprocessing");
      break;
    case "output:checked":
      break;
    case "task:done": {
      move(state, event.key, event.job, "done");
      // Counted: a done task moves no more, so the screen keeps counts, not every task run.
      state.tasks.delete(event.key);
      const second = Math.floor(now / 1000);
      state.doneBySecond.set(second, (state.doneBySecond.get(second) ?? 0) + 1);
      for (const key of state.doneBySecond.keys())
        if (key <= second - WINDOW_MS / 1000) state.doneBySecond.delete(key);
      break;
    }
    case "task:failed": {
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
      break;
    }
    case "gateway:rate-limited":
      state.rateLimitedUntil = Math.max(state.rateLimitedUntil, now + event.retryAfterMs);
      state.ratePerSecond = event.ratePerSecond;
      break;
    case "gateway:retry":
      state.backoffUntil = Math.max(state.backoffUntil, now + event.delayMs);
      break;
    case "output:missing":
      state.missing[event.action] += event.files.length;
      break;
    case "output:delivered":
      state.delivered += event.outputs;
      break;
    case "output:published":
      if (event.failed === null) state.published.done += 1;
      else state.published.failed += 1;
      break;
    case "task:judged":
      state.judged[event.verdict] += 1;
      if (event.retake !== null) state.judged.retakes += 1;
      break;
    case "run:stopping":
      state.stopping = { reason: event.reason, message: event.message };
      break;
    case "run:finished":
      state.end = event.end;
      state.finishedAt = now;
      state.spent = event.spent;
      state.paid = event.paid;
      state.estimate = event.estimate;
      state.counts = { ...event.counts };
      state.unknownSubmits = event.unknownSubmits;
      // Run to its end, it made all it was to (an upstream may make fewer than its most).
      if (event.end === "done" || event.end === "failed") dropAwaiting(state);
      break;
    default: {
      // Every event is handled; a new one fails to compile here.
      event satisfies never;
    }
  }
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

function groupOf(state: RunState, job: string, family: string | null = null): GroupState {
  let group = state.groups.get(job);
  if (group === undefined) {
    group = {
      job,
      family,
      tasks: 0,
      stages: emptyStages(),
      skipped: 0,
      unseen: emptyStages(),
      awaiting: 0,
      runningProgress: 0,
    };
    state.groups.set(job, group);
  }
  return group;
}

/**
 * Moves a task to `stage` in the run's and its job's counts; returns the stage it was in,
 * null when it was never counted.
 */
function move(
  state: RunState,
  key: string,
  job: string,
  stage: Stage,
  progress?: number,
  from: readonly Stage[] = FROM[stage],
): Stage | null {
  const group = groupOf(state, job);
  // Whatever moved it on, the gateway has been asked about it (or it never got there).
  state.firstPolls.delete(key);
  let task = state.tasks.get(key);
  let was: Stage | null;
  if (task === undefined) {
    was = from.find((s) => group.unseen[s] > 0) ?? null;
    if (was !== null) group.unseen[was] -= 1;
    else if (group.awaiting > 0 && from.includes("queued")) {
      // A dependant made and moved on at once (a stand-in skipped): it was awaiting.
      group.awaiting -= 1;
      was = "queued";
    }
    if (was === null) {
      // Never counted (a task of another process): it joins the run here.
      group.tasks += 1;
      state.total += 1;
    } else {
      group.stages[was] -= 1;
      state.stages[was] -= 1;
    }
    task = { job, stage, progress: 0 };
    state.tasks.set(key, task);
    group.stages[stage] += 1;
    state.stages[stage] += 1;
  } else if (task.stage === stage) was = stage;
  else {
    was = task.stage;
    group.stages[task.stage] -= 1;
    state.stages[task.stage] -= 1;
    if (task.stage === "running") {
      group.runningProgress -= task.progress;
      state.runningProgress -= task.progress;
    }
    task.stage = stage;
    task.progress = 0;
    group.stages[stage] += 1;
    state.stages[stage] += 1;
  }
  if (stage === "running" && progress !== undefined) {
    const delta = progress - task.progress;
    group.runningProgress += delta;
    state.runningProgress += delta;
    task.progress = progress;
  }
  return was;
}
