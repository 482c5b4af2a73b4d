import { rm } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hashFile } from "../../../src/core/output-files.js";
import { fastSettings, filesBelow, withRun } from "../../helpers/run.js";
import { mixedJobs } from "../../helpers/run-manifests.js";

describe("gwrun run", () => {
  it("runs 300 mixed image and video jobs to verified files, and a second run pays for nothing", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "mixed.yaml",
        `${fastSettings(scope.outputDir)}name: mixed\n${mixedJobs()}`,
      );
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.stderr).toMatch(/run 1 done after [^:]+: 300 tasks, 300 done/);
      expect(first.code).toBe(0);
      const jobs = await scope.tasks();
      expect(jobs).toHaveLength(300);
      for (const job of jobs) {
        expect(job.state).toBe("done");
        expect(job.outputs).toHaveLength(1);
        const [output] = job.outputs;
        expect(output?.path?.startsWith(scope.outputDir)).toBe(true);
        expect(await hashFile(output?.path ?? "")).toBe(output?.sha256);
      }
      expect(filesBelow(scope.outputDir).filter((f) => f.endsWith(".png"))).toHaveLength(270);
      expect(filesBelow(scope.outputDir).filter((f) => f.endsWith(".mp4"))).toHaveLength(30);
      expect(scope.sim.counters().submits.accepted).toBe(300);

      const second = await scope.gwrun([manifest]).done;
      expect(second.code).toBe(0);
      expect(second.stderr).toMatch(/300 already done/);
      expect(scope.sim.counters().submits.accepted).toBe(300);
    });
  });

  it("redownloads a deleted file while its link works, without submitting again", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "two.yaml",
        `${fastSettings(scope.outputDir)}name: two
jobs:
  - { id: a, model: acme-image-2, prompt: "a mug", size: "256x256" }
  - { id: b, model: acme-image-2, prompt: "a cup", size: "256x256" }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const [job] = await scope.tasks();
      const file = job?.outputs[0]?.path ?? "";
      await rm(file);
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      expect(await hashFile(file)).toBe(job?.outputs[0]?.sha256);
      expect(scope.sim.counters().submits.accepted).toBe(2);
    });
  });

  it("keeps output paths and thumbnails inside the output folder, named by job label", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "names.yaml",
        `${fastSettings(scope.outputDir)}name: names\n${mixedJobs(10, 1)}`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const files = filesBelow(scope.outputDir).filter((f) => !f.endsWith(".json"));
      expect(files.sort()).toContain(path.join("stills", "stills-e1.png"));
      expect(files).toContain(path.join("clips", "clips.mp4"));
      expect(files).toContain(path.join(".thumbs", "clips", "clips.poster.jpg"));
      for (const file of files)
        expect(file).toMatch(
          /^((stills|clips)\/[\w-]+\.(png|mp4)|\.thumbs\/(stills|clips)\/[\w-]+\.(webp|poster\.jpg)|results\.jsonl|index\.html)$/,
        );
    });
  });
});
