import { describe, expect, it } from "vitest";
import type { NewTask, ReportScope, Store } from "../../../src/store/index.js";
import { openStoreOf, STORE_KINDS } from "../../helpers/store.js";

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

const task = (key: string, jobId: string, label = key): NewTask => ({
  key,
  jobId,
  label,
  family: "image-a",
  lane: "image",
  endpoint: "/v1/images/generations",
  request: "{}",
  upstreamKey: null,
  estimatedCost: 0.1,
});

/** A run into `folder`, as `gwrun run` records one; its id. */
const runInto = (store: Store, folder: string) =>
  store.createRun({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: folder,
    started_at: 1,
  });

describe.each(STORE_KINDS)("store (%s): what reports read", (kind) => {
  it("reads a run's outputs with the tasks of each manifest job together, and its failures", async () => {
    const { store, runId: run } = await openStoreOf(kind);
    try {
      // A dependant recorded between two tasks of `hero`, as `from:` jobs are.
      await store.recordTasks(
        run,
        [task("hero-1", "hero"), task("teaser-1", "teaser"), task("hero-2", "hero")],
        1,
      );
      // Outputs on a task still pending, and a skip without its upstream: what is read, not how
      // the tasks got there, is the point here.
      await store.sql(`INSERT INTO outputs (job_key, idx, state, path, check_state) VALUES
          ('hero-1', 0, 'pending', NULL, NULL),
          ('hero-1', 1, 'downloaded', '/out/hero/hero-1-2.png', 'failed');
        UPDATE jobs SET state = 'skipped', reason = 'upstream failed' WHERE key = 'teaser-1';`);

      const rows = (await collect(store.reportRows({ run }))).map((row) => [
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
        (await collect(store.failuresOf({ run }))).map((f) => [f.label, f.state, f.reason]),
      ).toEqual([["teaser-1", "skipped", "upstream failed"]]);
      expect(await store.summaryOf({ run })).toEqual({
        states: { pending: 2, skipped: 1 },
        outputs: 1,
        spent: 0,
        paid: 0,
        reviews: { approved: 0, rejected: 0 },
      });
    } finally {
      await store.close();
    }
  });

  it("a folder's report holds each label once, at the latest take done into the folder", async () => {
    const { store, runId: first } = await openStoreOf(kind);
    try {
      await store.recordTasks(
        first,
        [task("hero-1@a", "hero", "hero-1"), task("hero-2", "hero"), task("teaser-1", "teaser")],
        1,
      );
      // `--only hero --force` after the first hero prompt was edited: a new key for hero-1,
      // the same key for hero-2; another folder's run of hero-1 is no part of this one.
      const partial = await runInto(store, "/out");
      await store.recordTasks(
        partial,
        [task("hero-1@b", "hero", "hero-1"), task("hero-2", "hero")],
        2,
      );
      const elsewhere = await runInto(store, "/elsewhere");
      await store.recordTasks(elsewhere, [task("hero-1@c", "hero", "hero-1")], 3);
      await store.sql(`UPDATE jobs SET state = 'done', cost = 0.25;
        UPDATE jobs SET state = 'failed', reason = 'refused' WHERE key = 'hero-1@a';
        INSERT INTO outputs (job_key, idx, state, path) VALUES
          ('hero-1@b', 0, 'downloaded', '/out/hero/hero-1.png'),
          ('hero-2', 0, 'downloaded', '/out/hero/hero-2.png'),
          ('teaser-1', 0, 'downloaded', '/out/teaser/teaser-1.png'),
          ('hero-1@c', 0, 'downloaded', '/elsewhere/hero/hero-1.png');`);

      const keys = async (scope: ReportScope) =>
        (await collect(store.reportRows(scope))).map((row) => row.task.key);
      // The edited take stands where hero-1 always stood.
      expect(await keys({ folder: "/out" })).toEqual(["hero-1@b", "hero-2", "teaser-1"]);
      expect((await keys({ run: partial })).sort()).toEqual(["hero-1@b", "hero-2"]);
      expect(await collect(store.failuresOf({ folder: "/out" }))).toEqual([]);
      expect(await store.summaryOf({ folder: "/out" })).toEqual({
        states: { done: 3 },
        outputs: 3,
        spent: 0.75,
        paid: 0.75,
        reviews: { approved: 0, rejected: 0 },
      });

      // Going back to the first prompt: until that take is done, the file on disk is still
      // the edited take's, and the folder shows it; once done, the first key stands there.
      const back = await runInto(store, "/out");
      await store.recordTasks(back, [task("hero-1@a", "hero", "hero-1")], 4);
      await store.sql("UPDATE jobs SET state = 'pending', reason = NULL WHERE key = 'hero-1@a'");
      expect(await keys({ folder: "/out" })).toEqual(["hero-1@b", "hero-2", "teaser-1"]);
      await store.sql("UPDATE jobs SET state = 'done' WHERE key = 'hero-1@a'");
      expect(await keys({ folder: "/out" })).toEqual(["hero-1@a", "hero-2", "teaser-1"]);
    } finally {
      await store.close();
    }
  });
});
