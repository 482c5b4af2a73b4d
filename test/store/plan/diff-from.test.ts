import { describe, expect, it } from "vitest";
import { dependantTasks } from "../../../src/plan/tasks.js";
import { TaskState } from "../../../src/store/index.js";
import { group, NOW, scope, taskOf } from "../../helpers/plan-diff.js";

const FAN_OUT = `
version: 1
jobs:
  - { id: hero, model: acme2.7-image, prompt: a mug, n: 2, repeat: 2 }
  - id: variant
    model: acme2.7-image
    from: hero
    prompt: a variant
    image_urls: ["{{input.url}}"]
`;

describe("a plan's from: jobs against the store", () => {
  it("counts the dependants of an upstream without outputs from its expected outputs, as new", async () => {
    const { plan, set, diff } = await scope(FAN_OUT);
    set(taskOf(plan, 0).key, TaskState.Processing, { task_id: "t1" });
    const diffed = await diff();
    // 2 hero tasks × 2 images each, one variant per image.
    expect(group(diffed, "variant")).toMatchObject({
      status: { new: 4, done: 0 },
      statusExact: true,
      newCost: 0.8,
    });
    // Only the tasks a run records at its start are rows.
    expect(diffed.tasks.map((task) => task.jobId)).toEqual(["hero", "hero"]);
  });

  it("keys the dependants of an upstream done as the run does, and diffs those recorded", async () => {
    const { plan, store, runId, templates, set, output, diff } = await scope(FAN_OUT);
    const hero = taskOf(plan, 0);
    set(hero.key, TaskState.Done);
    output(hero.key, 0);
    output(hero.key, 1);
    // The run recorded the variant of the first image and finished it.
    const [first] = dependantTasks(
      templates.get("hero") ?? [],
      { key: hero.key, label: hero.label, outputIndex: 0, outputs: 2 },
      {
        label: hero.label,
        kind: "media",
        url: "https://cdn.example/0",
        dataUri: () => "",
        text: () => "",
      },
    );
    if (first === undefined) throw new Error("no dependant");
    await store.recordTasks(runId, [first.task], NOW);
    set(first.task.key, TaskState.Done);
    output(first.task.key, 0);
    expect(group(await diff(), "variant")).toMatchObject({
      // The first image's variant is done; the second's is to make; the other hero's two wait.
      status: { new: 3, done: 1 },
      newCost: 0.6,
    });
  });

  it("counts a skipped dependant of an upstream now done as new: the run brings it back", async () => {
    const { plan, store, runId, templates, set, output, diff } = await scope(FAN_OUT);
    const hero = taskOf(plan, 0);
    set(hero.key, TaskState.Done);
    output(hero.key, 0);
    output(hero.key, 1);
    const dependants = dependantTasks(
      templates.get("hero") ?? [],
      { key: hero.key, label: hero.label, outputIndex: 0, outputs: 2 },
      { label: hero.label, kind: "media", url: "https://x/0", dataUri: () => "", text: () => "" },
    );
    await store.recordTasks(
      runId,
      dependants.map(({ task }) => task),
      NOW,
    );
    for (const { task } of dependants) set(task.key, TaskState.Skipped, { reason: "upstream" });
    expect(group(await diff(), "variant").status).toMatchObject({ new: 4, failed: 0 });
  });

  it("ignores dependants recorded from an earlier version of the from: job", async () => {
    const { plan, store, runId, set, output, diff } = await scope(FAN_OUT);
    const hero = taskOf(plan, 0);
    set(hero.key, TaskState.Done);
    output(hero.key, 0);
    output(hero.key, 1);
    const old = await scope(FAN_OUT.replace("a variant", "an older variant"));
    const [stale] = dependantTasks(
      old.templates.get("hero") ?? [],
      { key: hero.key, label: hero.label, outputIndex: 0, outputs: 2 },
      { label: hero.label, kind: "media", url: "https://x/0", dataUri: () => "", text: () => "" },
    );
    if (stale === undefined) throw new Error("no dependant");
    await store.recordTasks(runId, [stale.task], NOW);
    set(stale.task.key, TaskState.Done);
    output(stale.task.key, 0);
    expect(group(await diff(), "variant").status).toMatchObject({ new: 4, done: 0 });
  });

  it("counts a dependant whose input can no longer be sent failed, not new", async () => {
    const { plan, set, output, diff } = await scope(`
version: 1
jobs:
  - { id: shots, model: acme2.7-image, prompt: a mug }
  - id: clip
    model: acme-v4-fast
    from: shots
    first_frame_image: "{{input.url}}"
    prompt: a slow orbit
    resolution: 720p
    duration: 5
`);
    const shots = taskOf(plan, 0);
    set(shots.key, TaskState.Done);
    // Its file is intact, its link dead: this family takes no Data URI in its place.
    output(shots.key, 0, { linkExpires: NOW - 1 });
    expect(group(await diff(), "clip").status).toMatchObject({ new: 0, failed: 1 });
  });

  it("counts the dependants of a failed upstream failed: they wait for its retry", async () => {
    const { plan, set, diff } = await scope(FAN_OUT);
    set(taskOf(plan, 0).key, TaskState.Failed, { reason: "gone" });
    expect(group(await diff(), "variant")).toMatchObject({
      status: { new: 2, failed: 2 },
      newCost: 0.4,
    });
  });

  it("follows a chain of from: jobs down from what each step should make", async () => {
    const { diff } = await scope(`
version: 1
jobs:
  - id: captions
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "a caption" }]
    n: 3
  - { id: images, model: acme2.7-image, from: captions, prompt: "{{input.text}}", n: 2 }
  - id: clips
    model: acme-video-2.3-Fast
    from: images
    first_frame_image: "{{input.url}}"
    prompt: "[推进] push in"
`);
    const diffed = await diff();
    // As many as the plan counts for the manifest, all new.
    expect(diffed.groups.map((entry) => [entry.tasks, entry.cost])).toEqual([
      [1, null],
      [3, 1.2],
      [6, null],
    ]);
    expect(
      diffed.groups.map((entry) => [
        entry.job,
        entry.status.new,
        entry.newCost,
        entry.newWithUnknownCost,
        entry.statusExact,
      ]),
    ).toEqual([
      ["captions", 1, 0, 1, true],
      // acme2.7-image is priced per image: 0.2 × 2 per task.
      ["images", 3, 1.2, 0, true],
      ["clips", 6, 0, 6, true],
    ]);
    expect(diffed.totals).toMatchObject({
      status: { new: 10 },
      statusUpperBound: false,
      newCost: 1.2,
      newWithUnknownCost: 7,
    });
  });
});
