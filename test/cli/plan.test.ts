import { describe, expect, it } from "vitest";
import { gwrun } from "../helpers/cli.js";

describe("gwrun plan", () => {
  it("prints tasks, outputs and estimated cost per job", () => {
    const result = gwrun(["plan", "manifests/campaign.yaml"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/hero\s+image family A\s+acme-image-2\s+2\s+2 images\s+unknown/);
    expect(result.stdout).toMatch(
      /styles\s+image family B\s+acme2\.7-image\s+4\s+4 images\s+0\.80/,
    );
    expect(result.stdout).toMatch(
      /teaser\s+video family 1\s+acme-video-2\.3-Fast\s+from hero\s+2\s+2 videos/,
    );
    expect(result.stdout).toContain("total:");
  });

  it("shows the chain of the pipeline manifest and what each step creates, as text and JSON", () => {
    const text = gwrun(["plan", "manifests/pipeline.yaml"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "captions (1 task) → images (1 per output of captions: 3 tasks) → clips (1 per output of images: 3 tasks)",
    );
    const json = JSON.parse(gwrun(["plan", "manifests/pipeline.yaml", "--json"]).stdout);
    expect(
      json.pipelines[0].map((step: { job: string; tasks: number }) => [step.job, step.tasks]),
    ).toEqual([
      ["captions", 1],
      ["images", 3],
      ["clips", 3],
    ]);
  });

  it("prints the same plan as JSON with --json", () => {
    const result = gwrun(["plan", "manifests/campaign.yaml", "--json"]);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan.version).toBe(1);
    expect(plan.name).toBe("spring-campaign");
    expect(plan.groups.map((group: { job: string }) => group.job)).toEqual([
      "hero",
      "styles",
      "glaze",
      "lifestyle",
      "teaser",
      "captions",
    ]);
    expect(plan.tasks.every((task: { key: string }) => /^[0-9a-f]{64}$/.test(task.key))).toBe(true);
  });

  it("refuses an invalid manifest with exit code 2", () => {
    const result = gwrun(["plan", "test/fixtures/bad-manifests/quoted-number.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
  });
});
