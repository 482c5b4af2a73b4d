import { type JobRow, JobState } from "../store/index.js";
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
export function stageOf(state: JobState): Stage {
  switch (state) {
    case JobState.Submitted:
    case JobState.Processing:
      return "running";
    case JobState.Completed:
    case JobState.Downloaded:
      return "downloading";
    case JobState.Done:
      return "done";
    case JobState.Failed:
    case JobState.Rejected:
    case JobState.Expired:
    case JobState.Skipped:
      return "failed";
    default:
      return "queued";
  }
}

/** The run's jobs grouped by job id, in manifest order, with their tasks by stage. */
export function jobGroups(rows: readonly JobRow[]): JobGroup[] {
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
