import { describe, expect, it } from "vitest";
import { RunStart } from "../../../src/engine/index.js";
import type { ManifestSettings } from "../../../src/manifest/index.js";
import { type TaskRow, TaskState } from "../../../src/store/index.js";

const row = (job_id: string, state: TaskState, n = 0, family = "image-a"): TaskRow =>
  ({
    key: `${job_id}-${state}-${n}`,
    job_id,
    family,
    lane: "image",
    state,
    placeholder: 0,
    upstream_key: null,
  }) as TaskRow;

const OPTIONS = {
  runId: 1,
  settings: { name: "groups", limits: { maxCost: undefined } } as unknown as ManifestSettings,
  outputDir: "out",
  templates: new Map(),
  baseUrl: "sim",
};

/** `run:started` of a start that read `rows`, took none on, spent nothing. */
function startedWith(rows: TaskRow[]) {
  const start = new RunStart(new Map());
  for (const task of rows) start.count(task);
  return start.started(OPTIONS, { spent: 0, paid: 0 });
}

describe("job groups at the start of a run", () => {
  it("count each job id's tasks by the stage they are taken on in, in manifest order", () => {
    const { groups, tasks } = startedWith([
      row("hero", TaskState.Done),
      row("hero", TaskState.Processing),
      row("clip", TaskState.Pending, 0, "video-1"),
      row("hero", TaskState.Completed),
      row("hero", TaskState.Submitting),
      row("clip", TaskState.Skipped, 0, "video-1"),
      row("clip", TaskState.Failed, 0, "video-1"),
    ]);
    expect(tasks).toBe(7);
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

  it("count a task in the stage it is placed in, not the one it was read in", () => {
    const start = new RunStart(new Map());
    const done = row("hero", TaskState.Done);
    start.count(done);
    start.count(row("hero", TaskState.Done, 1));
    start.placed(
      { to: "queue", task: { ...done, state: TaskState.Pending }, unknownSubmit: false },
      done,
    );
    const { groups } = start.started(OPTIONS, { spent: 0, paid: 0 });
    expect(groups).toMatchObject([{ job: "hero", tasks: 2, stages: { queued: 1, done: 1 } }]);
  });

  it("count thousands of pending tasks per job, each job once, in the order first met", () => {
    const start = new RunStart(new Map());
    for (let n = 0; n < 10_000; n++) start.count(row(`job-${n % 3}`, TaskState.Pending, n));
    const { groups, tasks } = start.started(OPTIONS, { spent: 0, paid: 0 });
    expect(tasks).toBe(10_000);
    expect(groups.map((g) => [g.job, g.stages.queued])).toEqual([
      ["job-0", 3334],
      ["job-1", 3333],
      ["job-2", 3333],
    ]);
  });
});
