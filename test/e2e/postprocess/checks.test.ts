import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { hashFile } from "../../../src/core/output-files.js";
import { openStore } from "../../../src/store/index.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { REVIEW_JOBS, readResults } from "./review.js";

describe("post-processing of a run", () => {
  it("checks every output, makes thumbnails and a clip poster, and writes results.jsonl and the gallery", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write("review.yaml", `${fastSettings(scope.outputDir)}${REVIEW_JOBS}`);
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/gallery: .*index\.html; results: .*results\.jsonl/);

      const results = readResults(scope.outputDir);
      expect(results.map((r) => r.file).sort()).toEqual([
        "clip/clip.mp4",
        "hero/hero-r1.png",
        "hero/hero-r2.png",
      ]);
      for (const record of results) {
        expect(record.checks.state).toBe("ok");
        expect(record.checks.problems).toEqual([]);
        expect(record.prompt).toContain("A mug");
        expect(await hashFile(path.join(scope.outputDir, record.file ?? ""))).toBe(record.sha256);
        const thumb = await sharp(path.join(scope.outputDir, record.thumbnail ?? "")).metadata();
        expect(thumb.format).toBe("webp");
        expect(thumb.width).toBe(384);
      }
      // The provenance sidecar carries the checks too.
      const sidecar = JSON.parse(
        readFileSync(path.join(scope.outputDir, "hero", "hero-r1.png.json"), "utf8"),
      );
      expect(sidecar).toMatchObject({
        label: "hero-r1",
        checks: { state: "ok", problems: [], format: "png" },
        thumbnail: "../.thumbs/hero/hero-r1.webp",
      });
      const clip = results.find((r) => r.job === "clip");
      expect(clip?.parameters).toEqual({
        aspect_ratio: "16:9",
        resolution: "720p",
        duration: 5,
        audio: true,
      });
      expect(clip?.checks).toMatchObject({
        codec: "h264",
        width: 1280,
        height: 720,
        audio: "aac",
      });
      expect(clip?.poster).toBe(".thumbs/clip/clip.poster.jpg");
      expect((await sharp(path.join(scope.outputDir, clip?.poster ?? "")).metadata()).width).toBe(
        1280,
      );

      // `gwrun report` rebuilds both files from the store alone.
      const before = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
      rmSync(path.join(scope.outputDir, "results.jsonl"));
      rmSync(path.join(scope.outputDir, "index.html"));
      const report = await scope.gwrun(["report"]).done;
      expect(report.code).toBe(0);
      expect(report.stdout).toMatch(/3 outputs, 0 failures/);
      expect(readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8")).toBe(before);
      expect(existsSync(path.join(scope.outputDir, "index.html"))).toBe(true);
    });
  });

  it("fails a picture of the wrong size, naming the file, its size and the size asked for", async () => {
    await withRun({ faults: { wrongSizeRate: 1 } }, async (scope) => {
      const manifest = scope.write(
        "wrong.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "16:9", resolution: 1k }
`,
      );
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code).toBe(1);
      const message =
        /^check failed: hero\.png is \d+x\d+, expected 1536x864 or 1672x941 for size 16:9, resolution 1k$/;
      const [job] = await scope.tasks();
      expect(job?.state).toBe("failed");
      expect(job?.reason).toMatch(message);
      expect(run.stderr).toContain(job?.reason);
      const [record] = readResults(scope.outputDir);
      expect(record?.checks.state).toBe("failed");
      expect(record?.checks.problems[0]).toMatch(/^hero\.png is \d+x\d+, expected/);
      // The picture stays for review, with its thumbnail.
      expect(existsSync(path.join(scope.outputDir, record?.thumbnail ?? "none"))).toBe(true);
      const gallery = readFileSync(path.join(scope.outputDir, "index.html"), "utf8");
      expect(gallery).toMatch(
        /<section class="failures"[\s\S]*hero[\s\S]*check failed: hero\.png is/,
      );
    });
  });

  it("makes a deleted thumbnail or poster again on the next run, without paying again", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "again.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - { id: shot, model: acme-image-2, prompt: "a mug", size: "1:1" }
  - { id: clip, model: acme2.6, prompt: "a mug", aspect_ratio: "16:9", resolution: 720p, duration: 5 }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const reviewImages = (await scope.tasks())
        .flatMap((job) => job.outputs.flatMap((o) => [o.thumbnail, o.poster]))
        .filter((file): file is string => file !== null);
      expect(reviewImages).toHaveLength(3);
      for (const file of reviewImages) rmSync(file);
      const again = await scope.gwrun(["run", manifest]).done;
      expect(again.code).toBe(0);
      for (const file of reviewImages) expect(existsSync(file)).toBe(true);
      expect((await scope.tasks()).map((job) => job.state)).toEqual(["done", "done"]);
      expect(scope.sim.counters().submits.accepted).toBe(2);
    });
  });

  it("fails a clip shorter than asked, with its length and the length asked for", async () => {
    await withRun({ faults: { shortClipRate: 1 } }, async (scope) => {
      const manifest = scope.write(
        "short.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - { id: clip, model: acme2.6, prompt: "a mug", aspect_ratio: "16:9", resolution: 720p, duration: 5 }
`,
      );
      const run = await scope.gwrun(["run", manifest, "--json"]).done;
      expect(run.code).toBe(1);
      expect((await scope.tasks())[0]?.reason).toBe(
        "check failed: clip.mp4 lasts 2.0 s, expected 5 s ± 0.5 s for duration 5",
      );
      const events = run.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          // Every line of the versioned stream carries its version and time.
          const { v, at, ...event } = JSON.parse(line) as { v: number; at: number; type: string };
          expect(v).toBe(2);
          expect(typeof at).toBe("number");
          return event;
        });
      const types = events.map((event) => event.type);
      expect(types.indexOf("task:postprocessing")).toBeGreaterThan(
        types.indexOf("output:downloaded"),
      );
      expect(events.filter((event) => event.type === "output:checked")).toEqual([
        {
          type: "output:checked",
          key: (await scope.tasks())[0]?.key,
          label: "clip",
          index: 0,
          ok: false,
          problems: ["clip.mp4 lasts 2.0 s, expected 5 s ± 0.5 s for duration 5"],
          thumbnail: path.join(scope.outputDir, ".thumbs", "clip", "clip.webp"),
        },
      ]);
    });
  });

  it("accepts a short clip within the manifest's duration_tolerance", async () => {
    await withRun({ faults: { shortClipRate: 1 } }, async (scope) => {
      const manifest = scope.write(
        "tolerant.yaml",
        `${fastSettings(scope.outputDir, "checks: { duration_tolerance: 3.5 }\n")}jobs:
  - { id: clip, model: acme2.6, prompt: "a mug", aspect_ratio: "16:9", resolution: 720p, duration: 5 }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      expect(readResults(scope.outputDir)[0]?.checks).toMatchObject({
        state: "ok",
        duration_s: 2,
      });
    });
  });

  it("resubmits a job whose check failed when on_fail is retry, until its attempts run out", async () => {
    await withRun({ faults: { wrongSizeRate: 1 } }, async (scope) => {
      const manifest = scope.write(
        "retry.yaml",
        `${fastSettings(scope.outputDir).replace("attempts: 6", "attempts: 3")}jobs:
  - id: hero
    model: acme-image-2
    prompt: "a mug"
    size: "16:9"
    resolution: 1k
    checks: { on_fail: retry }
`,
      );
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code).toBe(1);
      expect(scope.sim.counters().submits.accepted).toBe(3);
      const [job] = await scope.tasks();
      expect(job).toMatchObject({ state: "failed", attempts: 3 });
      expect(job?.reason).toMatch(/^check failed: hero\.png is/);
    });
  });

  it("checks again a job found downloaded on resume, without submitting it again", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "resume.yaml",
        `${fastSettings(scope.outputDir)}jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "16:9", resolution: 1k }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      // As a process killed between download and checks leaves it.
      const store = openStore(scope.db);
      store.db.prepare("UPDATE jobs SET state = 'downloaded', done_at = NULL").run();
      store.db
        .prepare("UPDATE outputs SET check_state = NULL, checks = NULL, thumbnail = NULL")
        .run();
      await store.close();
      rmSync(path.join(scope.outputDir, ".thumbs"), { recursive: true });

      const resumed = await scope.gwrun(["resume"]).done;
      expect(resumed.code).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(1);
      const [job] = await scope.tasks();
      expect(job?.state).toBe("done");
      expect(job?.outputs[0]).toMatchObject({
        check_state: "ok",
        thumbnail: expect.stringContaining(".thumbs"),
      });
      expect(existsSync(job?.outputs[0]?.thumbnail ?? "none")).toBe(true);
    });
  });
});
