import { emptyStages, type Stage } from "../engine/index.js";
import type { GroupState, RunState } from "./run-state-types.js";

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

/** A job id's counts, made empty the first time it is heard of. */
export function groupOf(state: RunState, job: string, family: string | null = null): GroupState {
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
export function move(
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
