import { describe, expect, it } from "vitest";
import type { NewTask } from "../../src/store/index.js";
import { openTestStore } from "../helpers/store.js";

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

const task = (key: string, jobId: string): NewTask => ({
  key,
  jobId,
  label: key,
  family: "image-a",
  lane: "image",
  endpoint: "/v1/images/generations",
  request: "{}",
  upstreamKey: null,
  estimatedCost: 0.1,
});

describe("store: what reports read", () => {
  it("reads a run's outputs with the tasks of each manifest job together, and its failures", async () => {
    const { store, runId: run } = await openTestStore();
    try {
      // A dependant recorded between two tasks of `hero`, as `from:` jobs are.
      await store.recordTasks(
        run,
        [task("hero-1", "hero"), task("teaser-1", "teaser"), task("hero-2", "hero")],
        1,
      );
      // Outputs on a task still pending, and a skip without its upstream: what is read, not how
      // the tasks got there, is the point here.
      store.db.exec(`INSERT INTO outputs (job_key, idx, state, path, check_state) VALUES
          ('hero-1', 0, 'pending', NULL, NULL),
          ('hero-1', 1, 'downloaded', '/out/hero/hero-1-2.png', 'failed');
        UPDATE jobs SET state = 'skipped', reason = 'upstream failed' WHERE key = 'teaser-1';`);

      const rows = (await collect(store.reportRows(run))).map((row) => [
        row.task.key,
        row.output?.idx ?? null,
      ]);
      expect(rows).toEqual([
        ["hero-1", 0],
        ["hero-1", 1],
        ["hero-2", null],
        ["teaser-1", null],
      ]);
      expect(
        (await collect(store.failuresOf(run))).map((f) => [f.label, f.state, f.reason]),
      ).toEqual([["teaser-1", "skipped", "upstream failed"]]);
      expect(await store.runSummary(run)).toEqual({
        states: { pending: 2, skipped: 1 },
        outputs: 1,
        spent: 0,
      });
    } finally {
      await store.close();
    }
  });
});
