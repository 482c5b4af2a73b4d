import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { type FleetWorker, startWorkerProcess } from "../../../src/fleet/index.js";
import { startSimulator } from "../../../src/sim/index.js";
import {
  inProject,
  openPgStore,
  openStore,
  type PgStore,
  type Store,
} from "../../../src/store/index.js";
import { gwrunAsync } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";
import { FAST } from "../../helpers/run.js";
import { until } from "../../helpers/until.js";

/**
 * One run core, two drivers: the same three-stage pipeline — pictures, a clip of each, a
 * caption of each clip — with a gateway that refuses one picture (its clip is skipped) and
 * delivers some pictures at the wrong size (checked, failed, made again: `on_fail: retry`),
 * worked by the single-process engine and by two fleet workers in this process, against
 * simulators that behave alike. The two records agree task by task.
 */

const PIPELINE = `version: 1
name: pipe
limits: { submit_rate: 200/s, max_in_flight: 40, downloads: 4 }
poll: { first_after: 50ms, every: 50ms, batch_size: 50 }
retry: { attempts: 4, min_delay: 5ms, max_delay: 50ms }
output: { thumbnails: { width: 64, format: webp } }
checks: { on_fail: retry }
jobs:
  - id: hero
    model: acme-image-2
    matrix: { color: [red, blue, green, white, black] }
    prompt: "a {{color}} mug"
    size: "1:1"
  - { id: banned, model: acme-image-2, prompt: "a forbidden mug", size: "1:1" }
  - id: clip
    model: acme-video-2.3-Fast
    from: hero
    first_frame_image: "{{input.url}}"
    prompt: slow push in
    duration: 6
  - id: caption
    endpoint: chat
    model: acme-5
    from: clip
    messages: [{ role: user, content: "A one-line caption for the clip at {{input.url}}" }]
    stream: false
  - id: banned-clip
    model: acme-video-2.3-Fast
    from: banned
    first_frame_image: "{{input.url}}"
    prompt: slow push in
    duration: 6
`;

/** What a task ended as, told apart by its label: the same in every driver. */
async function record(store: Store): Promise<Record<string, unknown>[]> {
  const run = await store.latestRun();
  if (run === undefined) return [];
  const rows = [];
  for (const task of await store.tasksOf(run.id)) {
    const outputs = await store.outputsOf(task.key);
    rows.push({
      label: task.label,
      job: task.job_id,
      state: task.state,
      attempts: task.attempts,
      take: task.take,
      outputs: outputs.filter((output) => output.state === "downloaded").length,
      checks: outputs.map((output) => output.check_state),
      // The reason's words, less what names a gateway's own task ids.
      reason: task.reason?.replace(/task_\S+/g, "task"),
    });
  }
  return rows.sort((a, b) => String(a.label).localeCompare(String(b.label)));
}

const SIM = { timeScale: FAST, mediaVariants: 4, seed: "drivers", faults: { wrongSizeRate: 0.5 } };

function project(): { dir: string; manifest: string } {
  const dir = tempDir();
  mkdirSync(path.join(dir, ".git"));
  const manifest = path.join(dir, "pipe.yaml");
  writeFileSync(manifest, PIPELINE);
  return { dir, manifest };
}

describe("one run core, two drivers", () => {
  it("the engine and two fleet workers make the same record of a pipeline with a failure and a retry", async () => {
    // The engine: one `gwrun run` on a SQLite store.
    const engineSim = await startSimulator(SIM);
    const single = project();
    try {
      const run = await gwrunAsync(["run", single.manifest, "--base-url", engineSim.url], {
        cwd: single.dir,
        env: { GW_API_KEY: "test-key" },
      }).done;
      expect(run.code, run.stderr).toBe(1);
    } finally {
      await engineSim.close();
    }
    const sqlite = inProject(openStore(path.join(single.dir, "data/gwrun.db")), single.dir);
    const byEngine = await record(sqlite);
    await sqlite.close();

    // The fleet: the run recorded and left to two workers in this process.
    const fleetSim = await startSimulator(SIM);
    const url = await testDatabase({ schema: true });
    const fleet = project();
    const stores: PgStore[] = [];
    const workers: FleetWorker[] = [];
    try {
      const recorded = await gwrunAsync(
        ["run", fleet.manifest, "--detach", "--base-url", fleetSim.url],
        { cwd: fleet.dir, env: { GW_API_KEY: "test-key", GWRUN_STORE: url } },
      ).done;
      expect(recorded.code, recorded.stderr).toBe(0);
      process.env.GW_API_KEY = "test-key";
      for (const name of ["w1", "w2"]) {
        const store = await openPgStore(url);
        stores.push(store);
        const id = `${name}@drivers-agree`;
        const worker = await startWorkerProcess({
          store,
          project: fleet.dir,
          id,
          name,
          concurrency: 4,
          downloads: 2,
          log: () => {},
          logRuns: false,
        });
        workers.push(worker);
      }
      const db = new pg.Pool({ connectionString: url, max: 1 });
      try {
        await until(
          "the fleet to settle the run",
          async () => {
            const { rows } = await db.query<{ status: string }>("SELECT status FROM runs");
            return rows[0]?.status !== "running";
          },
          { timeoutMs: 90_000, everyMs: 100 },
        );
      } finally {
        await db.end();
      }
      const located = inProject(stores[0] as PgStore, fleet.dir);
      const byFleet = await record(located);
      expect(byFleet).toEqual(byEngine);
      // What the comparison stands on: a refusal, a skip, and a check that made a task again.
      const states = byEngine.map((row) => row.state);
      expect(states).toContain("failed");
      expect(states).toContain("skipped");
      expect(byEngine.some((row) => row.state === "done" && Number(row.attempts) > 1)).toBe(true);
      const done = (job: string) =>
        byEngine.filter((row) => row.job === job && row.state === "done").length;
      expect(done("hero")).toBeGreaterThan(0);
      expect(done("caption")).toBe(done("hero"));
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
      await Promise.all(stores.map((store) => store.close()));
      await fleetSim.close();
    }
  }, 180_000);
});
