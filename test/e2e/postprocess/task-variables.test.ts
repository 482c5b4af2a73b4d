import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";
import { readResults } from "./review.js";

describe("variables on every task", () => {
  it("records matrix variables, repeat, upstream and take in the store, results.jsonl, sidecars and the gallery, and shows text answers whole", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "vars.yaml",
        `${fastSettings(scope.outputDir)}name: vars
jobs:
  - id: styles
    model: acme-image-2
    matrix: { style: [watercolor, clay], size: ["1:1", "16:9"] }
    prompt: "a mug, {{style}} style"
    resolution: 1k
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "1:1", resolution: 1k, repeat: 2 }
  - id: clip
    model: acme-video-2.3-Fast
    from: hero
    first_frame_image: "{{input.url}}"
    prompt: "[推进] slow push in"
  - id: caption
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "One-line caption for a mug photo" }]
`,
      );
      const result = await scope.gwrun(["run", manifest]).done;
      expect(result.code, result.stderr).toBe(0);

      const tasks = await scope.tasks();
      const styles = tasks.filter((task) => task.job_id === "styles");
      expect(styles.map((task) => JSON.parse(task.vars ?? "null"))).toEqual([
        { style: "watercolor", size: "1:1" },
        { style: "watercolor", size: "16:9" },
        { style: "clay", size: "1:1" },
        { style: "clay", size: "16:9" },
      ]);
      const hero = tasks.filter((task) => task.job_id === "hero");
      expect(hero.map((task) => [task.repeat_index, task.take, task.vars])).toEqual([
        [0, 1, null],
        [1, 1, null],
      ]);
      const clips = tasks.filter((task) => task.job_id === "clip");
      expect(clips.map((task) => task.upstream_key).sort()).toEqual(
        hero.map((task) => task.key).sort(),
      );

      const records = readResults(scope.outputDir);
      const record = records.find((r) => r.label === "styles-e4");
      expect(record).toMatchObject({
        vars: { style: "clay", size: "16:9" },
        repeat: 0,
        take: 1,
        upstream: null,
      });
      const clip = records.find((r) => r.job === "clip");
      expect(hero.map((task) => task.key)).toContain(clip?.upstream);
      expect(records.find((r) => r.label === "hero-r2")?.repeat).toBe(1);

      const sidecar = JSON.parse(
        readFileSync(path.join(scope.outputDir, `${record?.file}.json`), "utf8"),
      ) as Record<string, unknown>;
      expect(sidecar).toMatchObject({ vars: { style: "clay", size: "16:9" }, repeat: 0, take: 1 });

      const gallery = readFileSync(path.join(scope.outputDir, "index.html"), "utf8");
      expect(gallery).toContain('<span data-var="style">style: clay</span>');
      expect(gallery).toContain("<span>repeat 2</span>");
      const caption = records.find((r) => r.job === "caption");
      const answer = readFileSync(path.join(scope.outputDir, caption?.file ?? ""), "utf8");
      expect(answer.length).toBeGreaterThan(0);
      expect(gallery).toContain(`<pre class="answer">${answer.replace(/&/g, "&amp;")}`);
    });
  });
});
