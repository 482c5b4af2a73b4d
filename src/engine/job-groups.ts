import type { CheckedJob } from "../families/index.js";
import { laneOf } from "../plan/index.js";
import { TaskState } from "../store/index.js";
import type { JobGroup, Stage, StageCounts } from "./events.js";

/** Every stage at zero. */
export function emptyStages(): StageCounts {
  return {
    queued: 0,
    submitting: 0,
    running: 0,
    downloading: 0,
    postprocessing: 0,
    done: 0,
    failed: 0,
  };
}

/** The stage a recorded task is in (a submit of a dead process is queued again). */
export function stageOf(state: TaskState): Stage {
  switch (state) {
    case TaskState.Submitted:
    case TaskState.Processing:
      return "running";
    case TaskState.Completed:
    case TaskState.Downloaded:
      return "downloading";
    case TaskState.Done:
      return "done";
    case TaskState.Failed:
    case TaskState.Rejected:
    case TaskState.Expired:
    case TaskState.Skipped:
    case TaskState.Held:
      return "failed";
    default:
      return "queued";
  }
}

/** A job id of the run, before any of its tasks is counted. */
export type JobOfRun = Pick<JobGroup, "job" | "family" | "lane">;

/** The `from:` jobs of a run, each once: they have no tasks until their upstream has outputs. */
export function dependantJobs(templates: ReadonlyMap<string, readonly CheckedJob[]>): JobOfRun[] {
  const jobs = new Map<string, JobOfRun>();
  for (const list of templates.values())
    for (const { job, family, endpoint } of list)
      if (!jobs.has(job.spec.id))
        jobs.set(job.spec.id, {
          job: job.spec.id,
          family: family?.id ?? null,
          lane: family?.lane ?? laneOf(endpoint),
        });
  return [...jobs.values()];
}
