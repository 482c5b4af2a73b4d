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

/** The stage a recorded job is taken on in (a submit of a dead process is queued again). */
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
      return "failed";
    default:
      return "queued";
  }
}

/** The run's jobs grouped by job id, in manifest order, with their tasks by stage. */
export function jobGroups(rows: readonly TaskRow[]): JobGroup[] {
  const groups = new Map<string, JobGroup>();
  for (const row of rows) {
    let group = groups.get(row.job_id);
    if (group === undefined) {
      group = {
        job: row.job_id,
        family: row.family,
        lane: row.lane,
        tasks: 0,
        stages: emptyStages(),
      };
      groups.set(row.job_id, group);
    }
    group.tasks += 1;
    group.stages[stageOf(row.state)] += 1;
  }
  return [...groups.values()];
}
