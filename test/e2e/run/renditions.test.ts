import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { probeMedia } from "../../../src/media/index.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";

/** Through the CLI against the simulator: `output.renditions` and the XMP marking. */

const SOURCE_TYPE = "http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia";

const RENDITIONS = `    - { name: feed, width: 300, height: 375, fit: cover, format: jpeg, quality: 80 }
    - { name: story, width: 270, height: 480, fit: cover, format: webp, position: centre }
    - { name: vertical, width: 180, height: 320, fit: cover, format: mp4 }
`;
const SQUARE = `    - { name: square, width: 200, height: 200, fit: contain, format: png, only: [hero] }
`;

function manifestText(scope: RunScope, renditions: string): string {
  const settings = fastSettings(scope.outputDir).replace(
    /output: \{ dir: (.*) \}/,
    `output:\n  dir: $1\n  thumbnails: false\n  renditions:\n${renditions}`,
  );
  return `${settings}name: channels
jobs:
  - { id: hero, model: acme-image-2, prompt: "a ceramic mug", size: "1:1", repeat: 2 }
  - id: teaser
    model: acme-video-2.3-Fast
    from: hero
    first_frame_image: "{{input.url}}"
    prompt: "slow push in"
`;
}

interface Listed {
  name: string;
  file: string;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
}
interface Line {
  job: string;
  file: string;
  sha256: string;
  c2pa?: boolean;
  renditions?: Listed[];
}

function results(scope: RunScope): Line[] {
  const text = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}

const sha256Of = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

function renditionTimes(scope: RunScope): Record<string, number> {
  return Object.fromEntries(
    filesBelow(scope.outputDir)
      .filter((name) => name.includes(`renditions${path.sep}`))
      .map((name) => [name, statSync(path.join(scope.outputDir, name)).mtimeMs]),
  );
}

describe("renditions", () => {
  it("makes each rendition at its exact size, marked and recorded, keeps the originals, and makes nothing twice", async () => {
    await withRun({ seed: "renditions" }, async (scope) => {
      const manifest = scope.write("channels.yaml", manifestText(scope, RENDITIONS));
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.code, first.stderr).toBe(0);
      const lines = results(scope);
      expect(lines.map((line) => line.job).sort()).toEqual(["hero", "hero", "teaser", "teaser"]);
      for (const line of lines) {
        const original = path.join(scope.outputDir, line.file);
        expect(sha256Of(original)).toBe(line.sha256);
        expect(line.c2pa).toBe(false);
        const names = (line.renditions ?? []).map((r) => r.name).sort();
        expect(names).toEqual(line.job === "hero" ? ["feed", "story"] : ["vertical"]);
        for (const rendition of line.renditions ?? []) {
          const file = path.join(scope.outputDir, rendition.file);
          expect(rendition.file).toMatch(new RegExp(`^${line.job}/renditions/${rendition.name}/`));
          expect(sha256Of(file)).toBe(rendition.sha256);
          expect(statSync(file).size).toBe(rendition.bytes);
          const asked = { feed: [300, 375], story: [270, 480], vertical: [180, 320] }[
            rendition.name
          ];
          expect([rendition.width, rendition.height]).toEqual(asked);
          if (rendition.name === "vertical") {
            const probe = await probeMedia(file);
            const video = probe.streams.find((stream) => stream.type === "video");
            expect([video?.width, video?.height]).toEqual(asked);
            const source = (await probeMedia(original)).streams.find((s) => s.type === "video");
            expect(video?.frameRate).toBeCloseTo(source?.frameRate ?? 0, 3);
            expect(readFileSync(file).toString("latin1")).toContain(SOURCE_TYPE);
          } else {
            const meta = await sharp(file).metadata();
            expect([meta.width, meta.height]).toEqual(asked);
            expect(meta.format).toBe(rendition.name === "feed" ? "jpeg" : "webp");
            const xmp = meta.xmp?.toString("utf8") ?? "";
            expect(xmp).toContain(SOURCE_TYPE);
            expect(xmp).toContain("acme-image-2");
            expect(xmp).toContain("a ceramic mug");
          }
        }
      }

      const gallery = readFileSync(path.join(scope.outputDir, "index.html"), "utf8");
      expect(gallery).toContain('href="hero/renditions/feed/hero-r1.jpg"');
      expect(gallery).toContain('href="teaser/renditions/vertical/');
      const submits = scope.sim.counters().submits.accepted;
      const made = renditionTimes(scope);
      expect(Object.keys(made)).toHaveLength(6);
      const again = await scope.gwrun(["run", manifest]).done;
      expect(again.code, again.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(submits);
      expect(renditionTimes(scope)).toEqual(made);
      expect(results(scope)).toEqual(lines);

      scope.write("channels.yaml", manifestText(scope, RENDITIONS + SQUARE));
      const added = await scope.gwrun(["run", manifest]).done;
      expect(added.code, added.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(submits);
      const now = renditionTimes(scope);
      const fresh = Object.keys(now).filter((name) => !(name in made));
      expect(fresh.sort()).toEqual([
        path.join("hero", "renditions", "square", "hero-r1.png"),
        path.join("hero", "renditions", "square", "hero-r2.png"),
      ]);
      for (const name of Object.keys(made)) expect(now[name]).toBe(made[name]);
      const square = await sharp(path.join(scope.outputDir, fresh[0] as string)).metadata();
      expect([square.width, square.height]).toEqual([200, 200]);
      for (const line of results(scope))
        expect(sha256Of(path.join(scope.outputDir, line.file))).toBe(line.sha256);
    });
  });

  it("exports each approved output as delivered, with its XMP marking beside it and its renditions", async () => {
    await withRun({ seed: "renditions-export" }, async (scope) => {
      const manifest = scope.write(
        "channels.yaml",
        manifestText(scope, RENDITIONS).replace(/ {2}- id: teaser[\s\S]*$/, ""),
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const store = await scope.open();
      try {
        const [task] = await store.tasksOf(1);
        await store.recordReview(
          { key: task?.key ?? "", index: 0, decision: "approved", note: null },
          1,
        );
      } finally {
        await store.close();
      }
      const delivery = path.join(scope.dir, "delivery");
      const exported = await scope.gwrun(["export", "--approved", delivery]).done;
      expect(exported.code, exported.stderr).toBe(0);
      const [line] = results(scope).filter((l) => l.file.endsWith(".png") && l.sha256 !== "");
      const files = filesBelow(delivery).sort();
      const copy = files.find((name) => name.endsWith(".png")) as string;
      const record = results(scope).find((l) => l.file === copy.split(path.sep).join("/"));
      expect(record).toBeDefined();
      expect(line).toBeDefined();
      expect(sha256Of(path.join(delivery, copy))).toBe(record?.sha256);
      const xmp = readFileSync(path.join(delivery, `${copy}.xmp`), "utf8");
      expect(xmp).toContain(SOURCE_TYPE);
      expect(xmp).toContain("a ceramic mug");
      for (const rendition of record?.renditions ?? []) {
        const there = path.join(delivery, rendition.file);
        expect(sha256Of(there)).toBe(rendition.sha256);
      }
      expect(record?.renditions).toHaveLength(2);
    });
  });
});
