import { describe, expect, it } from "vitest";
import { jobGroups } from "../../src/engine/job-groups.js";
import { type JobRow, JobState } from "../../src/store/index.js";

const row = (job_id: string, state: JobState, family = "image-a"): JobRow =>
  ({ key: `${job_id}-${state}`, job_id, family, lane: "image", state }) as JobRow;

describe("job groups at the start of a run", () => {
  it("count each job id's tasks by the stage they are taken on in, in manifest order", () => {
    const groups = jobGroups([
      row("hero", JobState.Done),
      row("hero", JobState.Processing),
      row("clip", JobState.Pending, "video-1"),
      row("hero", JobState.Completed),
      row("hero", JobState.Submitting),
      row("clip", JobState.Skipped, "video-1"),
      row("hero", JobState.Cancelled),
    ]);
    expect(groups.map((g) => g.job)).toEqual(["hero", "clip"]);
    expect(groups[0]).toMatchObject({
      family: "image-a",
      tasks: 5,
      stages: { done: 1, running: 1, downloading: 1, queued: 2, failed: 0 },
    });
    expect(groups[1]).toMatchObject({
      family: "video-1",
      tasks: 2,
      stages: { queued: 1, failed: 1 },
    });
  });
});
