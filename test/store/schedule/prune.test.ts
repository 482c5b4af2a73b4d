import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { pruneRuns } from "../../../src/schedule/index.js";
import { openStore, type Store } from "../../../src/store/index.js";
import { tempDir } from "../../helpers/manifest.js";
import { claimOne, imageTask } from "../../helpers/store.js";

/** Records a scheduled run with one job whose output is `file` (written to disk). */
async function recordRun(
  store: Store,
  tick: number,
  outputDir: string,
  file: string,
): Promise<number> {
  const id = await store.createRun({
    name: "daily",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: outputDir,
    started_at: tick,
    tick,
  });
  const key = `key-${tick}`;
  await store.recordTasks(id, [{ ...imageTask(key), jobId: "cover", label: "cover" }], tick);
  const pending = await store.task(key);
  if (pending === undefined) throw new Error(`no task ${key}`);
  const claim = await claimOne(store, pending, "me", tick);
  if (claim === undefined) throw new Error(`could not claim ${key}`);
  await store.recordReceipts(
    [
      {
        task: claim.task,
        taskId: `t-${tick}`,
        status: "submitted",
        nextPollAt: tick,
        unknownSubmits: 0,
      },
    ],
    tick,
  );
  const running = await store.task(key);
  if (running === undefined) throw new Error(`no task ${key}`);
  const links = [{ url: "https://x.invalid/a.png", expiresAt: null }];
  await store.recordPollRound(
    [{ task: running, outcome: { kind: "completed", links, cost: 0.1 } }],
    tick,
  );
  await store.recordDownloads(
    [{ task: running, idx: 0, path: file, bytes: 3, sha256: "abc", contentType: "image/png" }],
    tick,
  );
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "png");
  writeFileSync(`${file}.json`, "{}");
  return id;
}

describe("pruning scheduled runs", () => {
  it("keeps the newest runs, removes older folders whole, and never a file a kept run names", async () => {
    const root = tempDir();
    const store = openStore(path.join(root, "state.db"));
    try {
      const day = 86_400_000;
      const own = (n: number) => path.join(root, "out", `day-${n}`);
      const shared = path.join(root, "out", "shared");
      // Days 1 and 2 had folders of their own; days 3 and 4 wrote the same file in one folder.
      await recordRun(store, 1 * day, own(1), path.join(own(1), "cover/cover.png"));
      await recordRun(store, 2 * day, own(2), path.join(own(2), "cover/cover.png"));
      await recordRun(store, 3 * day, shared, path.join(shared, "cover/cover.png"));
      const latest = await recordRun(store, 4 * day, shared, path.join(shared, "cover/cover.png"));
      const before = path.join(shared, "cover/cover.png");

      const { pruned } = await pruneRuns(store, "daily", 1);
      expect(pruned.map((run) => run.tick)).toEqual([3 * day, 2 * day, 1 * day]);
      expect((await store.scheduledRuns("daily")).map((run) => run.id)).toEqual([latest]);
      expect(existsSync(own(1))).toBe(false);
      expect(existsSync(own(2))).toBe(false);
      // The kept run's file (same path as the pruned day 3's) stays, with its sidecar.
      expect(existsSync(before)).toBe(true);
      expect(existsSync(`${before}.json`)).toBe(true);
      const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
      expect(count("SELECT count(*) AS n FROM jobs")).toBe(1);
      expect(count("SELECT count(*) AS n FROM outputs")).toBe(1);
      expect(count("SELECT count(*) AS n FROM run_jobs")).toBe(1);
      expect(count(`SELECT count(*) AS n FROM events WHERE run_id != ${latest}`)).toBe(0);
      // Pruning again changes nothing.
      expect((await pruneRuns(store, "daily", 1)).pruned).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
