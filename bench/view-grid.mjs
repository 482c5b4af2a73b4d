// The viewer's own cost: the grid page of a run of 10,000 outputs (matrix variables, pictures
// by their thumbnails, half of them reviewed) served by `gwrun view`, timed from the request
// to the last byte, cold and warm; and the first thumbnail's answer.
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { systemClock } from "../dist/core/clock.js";
import { openStore } from "../dist/store/index.js";
import { startViewServer } from "../dist/view/index.js";
import { benchFolder } from "./folder.mjs";

const OUTPUTS = 10_000;
const dir = benchFolder("view");

async function timed(url) {
  const start = performance.now();
  const response = await fetch(url);
  const body = await response.arrayBuffer();
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return { ms: Math.round(performance.now() - start), bytes: body.byteLength };
}

try {
  const store = openStore(path.join(dir, "view.db"));
  const outputDir = path.join(dir, "out");
  const runId = await store.createRun({
    name: "bench",
    manifest_path: "bench.yaml",
    manifest_text: "version: 1\nlimits: { max_cost: 2000 }\n",
    base_url: "sim",
    output_dir: outputDir,
    started_at: 0,
  });
  const styles = ["watercolor", "clay", "photo", "ink"];
  const tasks = Array.from({ length: OUTPUTS }, (_, i) => ({
    // Keys as real ones are: sha256 in hex, which is most of each output's id.
    key: createHash("sha256").update(`task ${i}`).digest("hex"),
    jobId: `shots${i % 4}`,
    label: `shots${i % 4}-e${i}`,
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: JSON.stringify({ model: "acme-image-2", prompt: `A mug, take ${i}`, size: "1:1" }),
    upstreamKey: null,
    estimatedCost: 0.1,
    vars: { style: styles[i % 4], angle: `a${Math.floor(i / 4) % 50}`, shot: String(i % 7) },
  }));
  await store.recordTasks(runId, tasks, 0);
  const thumb = path.join(outputDir, ".thumbs", "t.webp");
  mkdirSync(path.dirname(thumb), { recursive: true });
  writeFileSync(thumb, Buffer.alloc(2000));
  // A finished run's outputs and reviews, written straight into the tables (setup only).
  const insert = store.db.prepare(
    `INSERT INTO outputs (job_key, idx, state, path, bytes, sha256, content_type, check_state, checks, thumbnail)
     VALUES (?, 0, 'downloaded', ?, 1000, ?, 'image/png', 'ok', '{"problems":[]}', ?)`,
  );
  const review = store.db.prepare(
    "INSERT INTO reviews (job_key, idx, decision, note, decided_at) VALUES (?, 0, ?, ?, 0)",
  );
  store.db.exec("UPDATE jobs SET state = 'done'");
  store.db.transaction(() => {
    tasks.forEach((task, i) => {
      insert.run(task.key, path.join(outputDir, `${task.label}.png`), "0".repeat(64), thumb);
      if (i % 2 === 0) review.run(task.key, i % 4 === 0 ? "approved" : "rejected", "a note");
    });
  })();
  const viewer = await startViewServer({ store, port: 0, token: "bench", clock: systemClock });
  try {
    const page = `${viewer.url}/runs/${runId}/outputs`;
    const cold = await timed(page);
    const warm = [];
    for (let i = 0; i < 5; i++) warm.push((await timed(page)).ms);
    warm.sort((a, b) => a - b);
    const thumbnail = await timed(`${viewer.url}/files/${tasks[0].key}/0/thumb`);
    console.log(
      JSON.stringify({
        bench: "view-grid-10k",
        outputs: OUTPUTS,
        grid_page_cold_ms: cold.ms,
        grid_page_median_ms: warm[2],
        grid_page_kb: Math.round(cold.bytes / 1024),
        thumbnail_ms: thumbnail.ms,
        under_1s: cold.ms < 1000 && (warm[2] ?? 0) < 1000,
      }),
    );
  } finally {
    await viewer.close();
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
