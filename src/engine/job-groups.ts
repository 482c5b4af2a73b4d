import type { CheckedJob } from "../families/index.js";
import { laneOf } from "../plan/index.js";
import { type TaskRow, TaskState } from "../store/index.js";
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

/**
 * The run's tasks grouped by job id, each counted in `stage` (where the run takes it on), in
 * the order first met; then the groups of `jobs` that have no task yet, empty.
 */
export function jobGroups(
  tasks: Iterable<{ row: TaskRow; stage: Stage }>,
  jobs: readonly JobOfRun[] = [],
): JobGroup[] {
  const groups = new Map<string, JobGroup>();
  const groupOf = (job: JobOfRun): JobGroup => {
    let group = groups.get(job.job);
    if (group === undefined) {
      group = { ...job, tasks: 0, stages: emptyStages(), skipped: 0 };
      groups.set(job.job, group);
    }
    return group;
  };
  for (const { row, stage } of tasks) {
    const group = groupOf({ job: row.job_id, family: row.family, lane: row.lane });
    group.tasks += 1;
    group.stages[stage] += 1;
    if (stage === "failed" && row.state === TaskState.Skipped)
      group.skipped = (group.skipped ?? 0) + 1;
  }
  for (const job of jobs) groupOf(job);
  return [...groups.values()];
}
