// Post-processing throughput, through the PostProcessor a run uses (queue bounded to the cores):
// - 2K pictures (2048x2048 PNGs from the simulator's renderer): check + 384 px WebP thumbnail;
// - 5 s 720p clips with audio (the simulator's MP4s): ffprobe checks + poster + thumbnail, and the
//   same with blackdetect/freezedetect;
// - results.jsonl and index.html for a run of 100,000 jobs written from the store.
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { PostProcessor, writeReport } from "../dist/postprocess/index.js";
import { writeMp4 } from "../dist/sim/media-clip.js";
import { writePng } from "../dist/sim/media-image.js";
import { openStore } from "../dist/store/index.js";
import { benchFolder } from "./folder.mjs";

const dir = benchFolder("post");
const IMAGES = 48;
const CLIPS = 12;

/** A downloaded job and its one output, as the engine hands them over. */
function task(i, model, body, file, contentType, family, lane) {
  const row = {
    key: `k${i}`,
    job_id: lane === "video" ? "clips" : "shots",
    label: `${lane}-${i}`,
    family,
    lane,
    request: JSON.stringify({ model, ...body }),
    vars: null,
    repeat_index: 0,
    take: 1,
    upstream_key: null,
    submitted_at: null,
    completed_at: null,
  };
  const output = {
    job_key: row.key,
    idx: 0,
    path: file,
    content_type: contentType,
    state: "downloaded",
    downloaded_at: null,
  };
  return { row, outputs: [output] };
}

async function timed(tasks, checks) {
  const post = new PostProcessor({
    outputDir: path.join(dir, "out"),
    thumbnails: { width: 384, format: "webp" },
    checksFor: () => checks,
  });
  const start = performance.now();
  const results = await Promise.all(tasks.map(({ row, outputs }) => post.process(row, outputs)));
  const seconds = (performance.now() - start) / 1000;
  const failed = results.flatMap((r) => r.verdicts).filter((v) => !v.ok);
  if (failed.length > 0) throw new Error(`unexpected problems: ${failed[0].problems.join("; ")}`);
  return Math.round((tasks.length / seconds) * 10) / 10;
}

async function reportOf100k() {
  const store = openStore(path.join(dir, "report.db"));
  const outputDir = path.join(dir, "report-out");
  const runId = await store.createRun({
    name: "bench",
    manifest_path: "bench.yaml",
    manifest_text: "",
    base_url: "sim",
    output_dir: outputDir,
    started_at: 0,
  });
  const jobs = Array.from({ length: 100_000 }, (_, i) => ({
    key: `key-${i}`,
    jobId: `shots${i % 10}`,
    label: `shots${i % 10}-e${i}`,
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: JSON.stringify({
      model: "acme-image-2",
      prompt: `A ceramic mug, take ${i}`,
      size: "1:1",
    }),
    upstreamKey: null,
    estimatedCost: 0.1,
  }));
  await store.recordTasks(runId, jobs, 0);
  // Outputs as a finished run leaves them, written straight into the tables (setup only).
  const insert = store.db.prepare(
    `INSERT INTO outputs (job_key, idx, url, expires_at, state, path, bytes, sha256, content_type, check_state, checks, thumbnail)
     VALUES (?, 0, NULL, NULL, 'downloaded', ?, 1000, ?, 'image/png', 'ok', ?, ?)`,
  );
  store.db.transaction(() => {
    for (const job of jobs)
      insert.run(
        job.key,
        path.join(outputDir, job.jobId, `${job.label}.png`),
        "0".repeat(64),
        '{"problems":[],"format":"png","width":1024,"height":1024}',
        path.join(outputDir, ".thumbs", job.jobId, `${job.label}.webp`),
      );
  })();
  const start = performance.now();
  const written = await writeReport(store, await store.run(runId));
  const ms = Math.round(performance.now() - start);
  await store.close();
  return { ms, outputs: written.outputs };
}

try {
  const pictures = await Promise.all(
    [0, 1, 2, 3].map(async (n) => {
      const file = path.join(dir, `p${n}.png`);
      await writePng(file, 2048, 2048, `bench-${n}`);
      return file;
    }),
  );
  const images = Array.from({ length: IMAGES }, (_, i) =>
    task(
      i,
      "acme-image-2",
      { prompt: "a mug", size: "2048x2048" },
      pictures[i % 4],
      "image/png",
      "image-a",
      "image",
    ),
  );
  const clip = path.join(dir, "clip.mp4");
  await writeMp4(clip, {
    width: 1280,
    height: 720,
    durationSeconds: 5,
    audio: true,
    seed: "bench",
  });
  const body = {
    prompt: "a mug",
    aspect_ratio: "16:9",
    resolution: "720p",
    duration: 5,
    audio: true,
  };
  const clips = Array.from({ length: CLIPS }, (_, i) =>
    task(i, "acme2.6", body, clip, "video/mp4", "video-6", "video"),
  );
  const thumbnailsPerSecond = await timed(images, {});
  const clipChecksPerSecond = await timed(clips, {});
  const framesPerSecond = await timed(clips, { black_frames: true, frozen_frames: true });
  const report = await reportOf100k();
  console.log(
    JSON.stringify({
      bench: "postprocess",
      cores: availableParallelism(),
      thumbnails_per_s_2k_png: thumbnailsPerSecond,
      clip_checks_per_s_5s_720p: clipChecksPerSecond,
      clip_checks_with_black_frozen_per_s: framesPerSecond,
      report_100k_jobs_ms: report.ms,
      report_outputs: report.outputs,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
