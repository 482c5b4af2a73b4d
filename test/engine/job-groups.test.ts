import { describe, expect, it } from "vitest";
import { jobGroups, stageOf } from "../../src/engine/job-groups.js";
import { type TaskRow, TaskState } from "../../src/store/index.js";

const row = (job_id: string, state: TaskState, family = "image-a"): TaskRow =>
  ({ key: `${job_id}-${state}`, job_id, family, lane: "image", state }) as TaskRow;

const asRecorded = (rows: TaskRow[]) => rows.map((r) => ({ row: r, stage: stageOf(r.state) }));

describe("job groups at the start of a run", () => {
  it("count each job id's tasks by the stage they are taken on in, in manifest order", () => {
    const groups = jobGroups(
      asRecorded([
        row("hero", TaskState.Done),
        row("hero", TaskState.Processing),
        row("clip", TaskState.Pending, "video-1"),
        row("hero", TaskState.Completed),
        row("hero", TaskState.Submitting),
        row("clip", TaskState.Skipped, "video-1"),
        row("clip", TaskState.Failed, "video-1"),
      ]),
    );
    expect(groups.map((g) => g.job)).toEqual(["hero", "clip"]);
    expect(groups[0]).toMatchObject({
      family: "image-a",
      tasks: 4,
      stages: { done: 1, running: 1, downloading: 1, queued: 1, failed: 0 },
    });
    expect(groups[1]).toMatchObject({
      family: "video-1",
      tasks: 3,
      stages: { queued: 1, failed: 2 },
      skipped: 1,
    });
  });

  it("count a task in the stage given, and add the jobs that have no task yet, empty", () => {
    const groups = jobGroups(
      [{ row: row("hero", TaskState.Done), stage: "queued" }],
      [
        { job: "hero", family: "image-a", lane: "image" },
        { job: "teaser", family: "video-1", lane: "video" },
      ],
    );
    expect(groups).toMatchObject([
      { job: "hero", tasks: 1, stages: { queued: 1, done: 0 } },
      { job: "teaser", family: "video-1", lane: "video", tasks: 0, stages: { queued: 0 } },
    ]);
  });
});
