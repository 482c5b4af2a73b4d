// Renditions of 1,000 pictures (1024x1024 PNGs) at two sizes — a 1080x1350 JPEG feed crop
// (attention) and a 540x960 WebP story crop (centre) — each with its XMP marking, through the
// function a run's end uses, on a queue bounded to the machine's cores: ms per picture (both
// renditions) and the process's peak RSS.
// Usage: node bench/renditions.mjs [pictures]
import { copyFileSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import PQueue from "p-queue";
import sharp from "sharp";
import { nodeFileWrites } from "../dist/core/file-writes.js";
import { makeRendition } from "../dist/postprocess/renditions.js";
import { benchFolder } from "./folder.mjs";

const PICTURES = Number(process.argv[2] ?? 1000);
const DISTINCT = 8;
const dir = benchFolder("renditions");
const outputDir = path.join(dir, "out");
const RENDITIONS = [
  { name: "feed", width: 1080, height: 1350, fit: "cover", format: "jpeg", quality: 85 },
  { name: "story", width: 540, height: 960, fit: "cover", format: "webp", position: "centre" },
];

try {
  const { mkdirSync } = await import("node:fs");
  mkdirSync(path.join(outputDir, "shots"), { recursive: true });
  const sources = [];
  for (let i = 0; i < DISTINCT; i += 1) {
    const file = path.join(dir, `source-${i}.png`);
    await sharp({
      create: {
        width: 1024,
        height: 1024,
        channels: 3,
        background: { r: 40 * i, g: 120, b: 200 - 20 * i },
        noise: { type: "gaussian", mean: 128, sigma: 30 },
      },
    })
      .png()
      .toFile(file);
    sources.push(file);
  }
  const files = Array.from({ length: PICTURES }, (_, i) => {
    const file = path.join(outputDir, "shots", `shot-${i}.png`);
    copyFileSync(sources[i % DISTINCT], file);
    return file;
  });
  const queue = new PQueue({ concurrency: availableParallelism() });
  const marking = { model: "acme-image-2", taskId: "task_bench", run: 1, prompt: "a mug" };
  const started = performance.now();
  for (const file of files)
    for (const rendition of RENDITIONS)
      void queue.add(() =>
        makeRendition(file, false, rendition, marking, outputDir, nodeFileWrites),
      );
  await queue.onIdle();
  const wall = performance.now() - started;
  console.log(
    JSON.stringify({
      bench: "renditions-1k-pictures",
      pictures: PICTURES,
      renditions_each: RENDITIONS.length,
      source: "1024x1024 png",
      cores: availableParallelism(),
      wall_ms: Math.round(wall),
      ms_per_picture: Math.round((wall / PICTURES) * 10) / 10,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
