// The viewer's own cost: the grid page of a run of 10,000 outputs (matrix variables, pictures
// by their thumbnails, half of them reviewed; see bench/view-store.mjs) served by `gwrun view`,
// timed from the request to the last byte, cold and warm; and the first thumbnail's answer.
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { systemClock } from "../dist/core/clock.js";
import { startViewServer } from "../dist/view/index.js";
import { benchFolder } from "./folder.mjs";
import { finishedRunStore } from "./view-store.mjs";

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
  const { store, runId, tasks } = await finishedRunStore(dir, OUTPUTS);
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
