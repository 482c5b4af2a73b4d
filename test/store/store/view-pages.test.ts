import { describe, expect, it } from "vitest";
import type { NewTask, Store } from "../../../src/store/index.js";
import {
  completeTask,
  downloadedFile,
  imageTask,
  openStoreOf,
  STORE_KINDS,
  taskNow,
} from "../../helpers/store.js";

/** Task `k<i>` of job `job`, labelled `<job>-<i>`. */
const task = (i: number, job: string): NewTask => ({
  ...imageTask(`k${String(i).padStart(2, "0")}`),
  jobId: job,
  label: `${job}-${i}`,
});

/** Completes and downloads both outputs of `key` at `now`: it ends downloaded. */
async function download(store: Store, key: string, now: number): Promise<void> {
  const done = await completeTask(store, key, now);
  await store.recordDownloads([downloadedFile(done, 0), downloadedFile(done, 1)], now + 1);
}

describe.each(STORE_KINDS)("store (%s): a large run's views, a page at a time", (kind) => {
  it("pages the grid with the tasks of one job together, and counts every output", async () => {
    const { store, runId } = await openStoreOf(kind);
    // Jobs interleaved as recorded: b first, then a; the grid keeps each job's tasks together.
    await store.recordTasks(
      runId,
      [task(1, "b"), task(2, "a"), task(3, "b"), task(4, "a"), task(5, "b")],
      1,
    );
    for (const key of ["k01", "k02", "k03", "k04", "k05"]) await download(store, key, 10);
    const all = await store.gridPageOf(runId, { offset: 0, limit: 100 });
    expect(all.total).toBe(10);
    expect(all.rows.map((row) => `${row.label}/${row.idx}`)).toEqual([
      "b-1/0",
      "b-1/1",
      "b-3/0",
      "b-3/1",
      "b-5/0",
      "b-5/1",
      "a-2/0",
      "a-2/1",
      "a-4/0",
      "a-4/1",
    ]);
    const second = await store.gridPageOf(runId, { offset: 4, limit: 4 });
    expect(second.total).toBe(10);
    expect(second.rows.map((row) => `${row.label}/${row.idx}`)).toEqual(
      all.rows.slice(4, 8).map((row) => `${row.label}/${row.idx}`),
    );
    await store.close();
  });

  it("pages the timeline in the order asked for over all tasks, and the failures", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(
      runId,
      [1, 2, 3, 4].map((i) => task(i, "a")),
      1,
    );
    await download(store, "k01", 10);
    await download(store, "k02", 100);
    for (const key of ["k03", "k04"])
      await store.failTask(await taskNow(store, key), ["pending"], "failed", `no ${key}`, 50);
    const query = { offset: 0, limit: 2, startedAt: 0, undoneOnly: false } as const;
    const first = await store.timelinePageOf(runId, { ...query, order: "recorded" });
    expect(first.total).toBe(4);
    expect(first.start).toBe(1);
    expect(first.end).toBe(101);
    expect(first.rows.map((row) => row.label)).toEqual(["a-1", "a-2"]);
    // The download is when its last output arrived.
    expect(first.rows[1]).toMatchObject({ completed_at: 100, downloaded_at: 101 });
    const slowest = await store.timelinePageOf(runId, { ...query, order: "slowest" });
    expect(slowest.rows.map((row) => row.label)).toEqual(["a-2", "a-3"]);
    const failedFirst = await store.timelinePageOf(runId, { ...query, order: "failed", offset: 1 });
    expect(failedFirst.rows.map((row) => row.label)).toEqual(["a-4", "a-1"]);
    const undone = await store.timelinePageOf(runId, {
      ...query,
      order: "recorded",
      undoneOnly: true,
    });
    expect([undone.total, undone.rows.map((row) => row.state)]).toEqual([2, ["failed", "failed"]]);
    // A later run's timeline leaves out what an earlier one finished and it left alone.
    // (a-1 and a-2 are downloaded, not finished: only the failures at 50 are left out.)
    const later = await store.timelinePageOf(runId, { ...query, order: "recorded", startedAt: 60 });
    expect([later.total, later.rows.map((row) => row.label)]).toEqual([2, ["a-1", "a-2"]]);
    const failures = await store.failuresPageOf(runId, { offset: 1, limit: 5 });
    expect(failures).toEqual({
      total: 2,
      rows: [{ key: "k04", job_id: "a", label: "a-4", state: "failed", reason: "no k04" }],
    });
    expect((await store.runSummaryOf(runId, 0)).finished).toBe(2);
    expect((await store.runSummaryOf(runId, 60)).finished).toBe(0);
    await store.close();
  });

  it("every page of the grid, the last and those across two jobs too, holds the rows the whole grid has there", async () => {
    const { store, runId } = await openStoreOf(kind);
    const jobs = ["c", "a", "b", "a", "c", "b", "a"];
    await store.recordTasks(
      runId,
      jobs.map((job, i) => task(i + 1, job)),
      1,
    );
    // One task of b is never downloaded: its job still groups where first recorded.
    for (const i of [1, 2, 4, 5, 6, 7]) await download(store, `k${String(i).padStart(2, "0")}`, 10);
    const id = (row: { label: string; idx: number }) => `${row.label}/${row.idx}`;
    const whole = await store.gridPageOf(runId, { offset: 0, limit: 100 });
    expect(whole.rows.map(id)).toEqual(
      ["c-1", "c-5", "a-2", "a-4", "a-7", "b-6"].flatMap((label) => [`${label}/0`, `${label}/1`]),
    );
    for (const size of [3, 4, 5]) {
      const pages: string[] = [];
      for (let offset = 0; offset < whole.total; offset += size) {
        const page = await store.gridPageOf(runId, { offset, limit: size });
        expect(page.total).toBe(12);
        pages.push(...page.rows.map(id));
      }
      expect(pages).toEqual(whole.rows.map(id));
    }
    expect((await store.gridPageOf(runId, { offset: 12, limit: 5 })).rows).toEqual([]);
    await store.close();
  });

  it("a run's failures page and counts leave out what failed in another run", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(runId, [task(1, "a"), task(2, "a")], 1);
    const other = await store.createRun({
      name: "other",
      manifest_path: "/m.yaml",
      manifest_text: "version: 1",
      base_url: "sim",
      output_dir: "/out",
      started_at: 1,
    });
    await store.recordTasks(other, [task(3, "a"), task(4, "a")], 2);
    for (const key of ["k02", "k03", "k04"])
      await store.failTask(await taskNow(store, key), ["pending"], "failed", `no ${key}`, 50);
    await download(store, "k01", 10);
    expect(await store.failuresPageOf(runId, { offset: 0, limit: 10 })).toEqual({
      total: 1,
      rows: [{ key: "k02", job_id: "a", label: "a-2", state: "failed", reason: "no k02" }],
    });
    expect((await store.failuresPageOf(other, { offset: 0, limit: 10 })).total).toBe(2);
    const summary = await store.summaryOf({ run: runId });
    expect(summary).toMatchObject({ states: { downloaded: 1, failed: 1 }, outputs: 2 });
    expect((await store.runSummaryOf(runId, 0)).finished).toBe(1);
    await store.close();
  });
});
