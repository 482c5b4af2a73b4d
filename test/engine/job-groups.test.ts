import { describe, expect, it } from "vitest";
import { jobGroups } from "../../src/engine/job-groups.js";
import { type TaskRow, TaskState } from "../../src/store/index.js";

const row = (job_id: string, state: TaskState, family = "image-a"): TaskRow =>
  ({ key: `${job_id}-${state}`, job_id, family, lane: "image", state }) as TaskRow;

describe("job groups at the start of a run", () => {
  it("count each job id's tasks by the stage they are taken on in, in manifest order", () => {
    const groups = jobGroups([
      row("hero", TaskState.Done),
      row("hero", TaskState.Processing),
      row("clip", TaskState.Pending, "video-1"),
      row("hero", TaskState.Completed),
      row("hero", TaskState.Submitting),
      row("clip", TaskState.Skipped, "video-1"),
    ]);
    expect(groups.map((g) => g.job)).toEqual(["hero", "clip"]);
    expect(groups[0]).toMatchObject({
      family: "image-a",
      tasks: 4,
      stages: { done: 1, running: 1, downloading: 1, queued: 1, failed: 0 },
    });
    expect(groups[1]).toMatchObject({
      family: "video-1",
      tasks: 2,
      stages: { queued: 1, failed: 1 },
    });
  });
});
