import { describe, expect, it } from "vitest";
import { describePipeline } from "../../../src/plan/pipelines.js";
import { planRun } from "../../../src/plan/plan.js";
import { checkInline } from "../../helpers/manifest.js";

async function planOf(yaml: string) {
  const checked = await checkInline(yaml);
  expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  if (checked.expanded.settings === undefined) throw new Error("no settings");
  return planRun("manifest.yaml", checked.expanded.settings, checked.jobs);
}

describe("plan", () => {
  it("counts tasks, outputs and the prices the spec states", async () => {
    const plan = await planOf(`
version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug, repeat: 4 }
  - id: sets
    model: acme2.7-image-pro
    prompt: a mug
    n: 2
    matrix: { size: ["1:1", "16:9", "9:16"] }
  - { id: std, model: acme2.7-image, prompt: a mug }
`);
    const byJob = Object.fromEntries(plan.groups.map((group) => [group.job, group]));
    expect(byJob.hero).toMatchObject({ tasks: 4, outputs: { count: 4, exact: true }, cost: null });
    expect(byJob.sets).toMatchObject({ tasks: 3, expansions: 3, outputs: { count: 6 }, cost: 3 });
    expect(byJob.std).toMatchObject({ tasks: 1, cost: 0.2 });
    expect(plan.totals).toEqual({
      tasks: 8,
      tasksUpperBound: false,
      outputs: 11,
      outputsUpperBound: false,
      cost: 3.2,
      tasksWithUnknownCost: 4,
    });
    expect(plan.tasks).toHaveLength(8);
    expect(new Set(plan.tasks.map((task) => task.key)).size).toBe(8);
  });

  it("fans a from: job out over every output of its upstream", async () => {
    const plan = await planOf(`
version: 1
jobs:
  - { id: hero, model: acme2.7-image, prompt: a mug, n: 3, repeat: 2 }
  - id: variant
    model: acme2.7-image
    from: hero
    prompt: a variant
    image_urls: ["{{input.url}}"]
    matrix: { size: ["1:1", "16:9"] }
`);
    const variant = plan.groups.find((group) => group.job === "variant");
    expect(variant).toMatchObject({ from: "hero", tasks: 12, outputs: { count: 12 }, cost: 2.4 });
    // Their requests depend on upstream outputs, so only the upstream's tasks are keyed now.
    expect(plan.tasks.map((task) => task.jobId)).toEqual(["hero", "hero"]);
  });

  it("shows each chain of from: jobs with the tasks every step creates", async () => {
    const plan = await planOf(`
version: 1
jobs:
  - id: captions
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "a caption" }]
    n: 3
  - { id: images, model: acme-image-2, from: captions, prompt: "{{input.text}}", repeat: 2 }
  - id: clips
    model: acme-video-2.3-Fast
    from: images
    first_frame_image: "{{input.url}}"
    prompt: "[推进] push in"
  - { id: alt, model: acme2.7-image, from: captions, prompt: "{{input.text}}" }
`);
    expect(plan.pipelines.map((chain) => chain.map((step) => step.job))).toEqual([
      ["captions", "images", "clips"],
      ["captions", "alt"],
    ]);
    const [main] = plan.pipelines;
    expect(main?.map((step) => [step.perUpstreamOutput, step.tasks])).toEqual([
      [null, 1],
      [2, 6],
      [1, 6],
    ]);
    expect(describePipeline(main ?? [])).toBe(
      "captions (1 task) → images (2 per output of captions: 6 tasks) → clips (1 per output of images: 6 tasks)",
    );
  });
});
