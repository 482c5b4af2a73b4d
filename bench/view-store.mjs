// A finished run of `outputs` pictures for the viewer's benchmarks, written straight into a
// SQLite store (setup only): matrix variables, thumbnails, half of them reviewed, one in a
// hundred failed, and each task's event log as a run writes it.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openStore } from "../dist/store/index.js";

/** Moves a run logs for a task that ends done, in order. */
export const MOVES = ["submitting", "submitted", "running", "completed", "downloaded", "done"];

/** The run's tasks as a run records them: matrix variables, keys as real ones are. */
export function benchTasks(outputs) {
  const styles = ["watercolor", "clay", "photo", "ink"];
  return Array.from({ length: outputs }, (_, i) => ({
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
}

/** The run as `createRun` takes it, writing into `outputDir`. */
export function benchRun(outputDir) {
  return {
    name: "bench",
    manifest_path: "bench.yaml",
    manifest_text: "version: 1\nlimits: { max_cost: 200000 }\n",
    base_url: "sim",
    output_dir: outputDir,
    started_at: 0,
  };
}

/**
 * Records the bench run's tasks in `store` (either adapter), pending, and writes the one
 * thumbnail every output names; returns the run id, its tasks, the thumbnail's path and the output folder.
 */
export async function recordBenchRun(store, dir, outputs) {
  const outputDir = path.join(dir, "out");
  const runId = await store.createRun(benchRun(outputDir));
  const tasks = benchTasks(outputs);
  for (let start = 0; start < tasks.length; start += 10_000)
    await store.recordTasks(runId, tasks.slice(start, start + 10_000), 0);
  const thumb = path.join(outputDir, ".thumbs", "t.webp");
  mkdirSync(path.dirname(thumb), { recursive: true });
  writeFileSync(thumb, Buffer.alloc(2000));
  return { runId, tasks, thumb, outputDir };
}

/** Opens `dir/view.db` and records the run; returns the store, the run id and its task keys. */
export async function finishedRunStore(dir, outputs) {
  const store = openStore(path.join(dir, "view.db"));
  const { runId, tasks, thumb, outputDir } = await recordBenchRun(store, dir, outputs);
  const insert = store.db.prepare(
    `INSERT INTO outputs (job_key, idx, state, path, bytes, sha256, content_type, check_state, checks, thumbnail, downloaded_at)
     VALUES (?, 0, 'downloaded', ?, 1000, ?, 'image/png', 'ok', '{"problems":[]}', ?, ?)`,
  );
  const review = store.db.prepare(
    "INSERT INTO reviews (job_key, idx, decision, note, decided_at) VALUES (?, 0, ?, ?, 0)",
  );
  const event = store.db.prepare(
    "INSERT INTO events (run_id, at, job_key, type, data) VALUES (?, ?, ?, ?, NULL)",
  );
  const finish = store.db.prepare(
    `UPDATE jobs SET state = ?, reason = ?, cost = 0.1, paid_run = ?, task_id = ?,
       submitted_at = ?, completed_at = ?, done_at = ?, updated_at = ? WHERE key = ?`,
  );
  store.db.transaction(() => {
    tasks.forEach((task, i) => {
      const at = 1000 + i;
      const failed = i % 100 === 99;
      finish.run(
        failed ? "failed" : "done",
        failed ? "the gateway refused the prompt" : null,
        runId,
        `task_${i}`,
        at,
        at + 5,
        failed ? null : at + 9,
        at + 9,
        task.key,
      );
      for (const [step, move] of MOVES.entries())
        if (!failed || step < 2) event.run(runId, at + step, task.key, `job:${move}`);
      if (failed) {
        event.run(runId, at + 3, task.key, "job:failed");
        return;
      }
      insert.run(
        task.key,
        path.join(outputDir, `${task.label}.png`),
        "0".repeat(64),
        thumb,
        at + 4,
      );
      if (i % 2 === 0) review.run(task.key, i % 4 === 0 ? "approved" : "rejected", "a note");
    });
  })();
  store.db
    .prepare("UPDATE runs SET status = 'done', finished_at = ? WHERE id = ?")
    .run(1000 + outputs + 10, runId);
  return { store, runId, tasks, outputDir };
}
