import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { plan } from "../../../../src/index.js";
import { gwrun, ROOT } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";
import { rowOf } from "../../../helpers/plan-table.js";

/** The API's plan of a manifest (from the repository root), against `db` (default: none yet). */
function planIn(manifest: string, db = path.join(tempDir(), "none.db")) {
  return plan(path.resolve(ROOT, manifest), { db, env: {} });
}

/** A state database that does not exist: every task is new. */
function noState(): string[] {
  return ["--db", path.join(tempDir(), "none.db")];
}

describe("gwrun plan", () => {
  it("prints tasks, outputs and estimated cost per job", async () => {
    const result = await gwrun(["plan", "manifests/campaign.yaml", ...noState()]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /hero\s+image family A\s+acme-image-2\s+2\s+2 images\s+2\s+0\s+0\s+0\s+0\.50 × 2/,
    );
    expect(result.stdout).toMatch(
      /styles\s+image family B\s+acme2\.7-image\s+4\s+4 images\s+4\s+0\s+0\s+0\s+0\.80/,
    );
    expect(result.stdout).toMatch(
      /teaser\s+video family 1\s+acme-video-2\.3-Fast\s+from hero\s+2\s+2 videos/,
    );
    expect(result.stdout).toContain("total:");
  });

  it("shows the chain of the pipeline manifest and what each step creates, as text and JSON", async () => {
    const text = await gwrun(["plan", "manifests/pipeline.yaml", ...noState()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "captions (1 task) → images (1 per output of captions: 3 tasks) → clips (1 per output of images: 3 tasks)",
    );
    // The plan's figures, in this process: the same function the command prints.
    const { plan } = await planIn("manifests/pipeline.yaml");
    expect(plan?.pipelines[0]?.map((step) => [step.job, step.tasks])).toEqual([
      ["captions", 1],
      ["images", 3],
      ["clips", 3],
    ]);
  });

  it("prints the same plan as JSON with --json", async () => {
    const result = await gwrun(["plan", "manifests/campaign.yaml", "--json", ...noState()]);
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

  it("never creates the state database it compares with", async () => {
    const db = path.join(tempDir(), "none.db");
    const { plan, store } = await planIn("manifests/campaign.yaml", db);
    expect(plan?.totals.status.new).toBeGreaterThan(0);
    expect(store).toEqual({ name: db, exists: false });
    expect(existsSync(db)).toBe(false);
  });

  it("counts new tasks of unknown price at limits.unknown_cost, per job and in total", async () => {
    const dir = tempDir({
      "plan.yaml": `version: 1
limits: { max_cost: 5, unknown_cost: 0.25 }
jobs:
  - { id: priced, model: acme2.7-image, prompt: a mug, repeat: 2 }
  - { id: stills, model: acme-image-2, prompt: a mug, repeat: 3 }
`,
    });
    const result = await gwrun(["plan", path.join(dir, "plan.yaml"), ...noState()]);
    expect(result.code, result.stderr).toBe(0);
    expect(rowOf(result.stdout, "priced").at(-1)).toBe("0.40");
    expect(rowOf(result.stdout, "stills").at(-1)).toBe("0.25 × 3");
    expect(result.stdout).toContain(
      "of these: 5 new (cost 0.40 + 0.25 × 3 unknown-price tasks at unknown_cost = 1.15), 0 done",
    );
    const { plan } = await planIn(path.join(dir, "plan.yaml"));
    expect(plan?.unknownCost).toBe(0.25);
    expect(plan?.totals).toMatchObject({ newCost: 0.4, newWithUnknownCost: 3 });
  });

  it("refuses an invalid manifest with exit code 2", async () => {
    const result = await gwrun(["plan", "test/fixtures/bad-manifests/quoted-number.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
  });
});

/** One row of the printed table: new, done, in flight, failed/expired and the cost of new. */
