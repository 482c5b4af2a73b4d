import { describe, expect, it } from "vitest";
import type { NewRun, NewTask, Store, TaskRow } from "../../../src/store/index.js";
import {
  claimOne,
  completeTask,
  downloadedFile,
  imageTask,
  openStoreOf,
  STORE_KINDS,
  type StoreKind,
  submitTask,
  type TestStore,
  taskNow,
} from "../../helpers/store.js";

/**
 * The store port method by method, on both adapters: what each one that the other contract
 * files reach only through the engine or the scheduler records and reads.
 */

const named = (key: string, jobId: string, label: string, more: Partial<NewTask> = {}) => ({
  ...imageTask(key),
  jobId,
  label,
  ...more,
});

const newRun = (
  more: Partial<
    Pick<NewRun, "name" | "output_dir" | "tick" | "started_at" | "publish_to" | "unknown_cost">
  >,
) =>
  ({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: "/out",
    started_at: 1,
    ...more,
  }) as const;

/** `key`, recorded in `runId`, taken through its downloads, checks and done. */
async function doneTask(store: Store, runId: number, key: string, now: number): Promise<TaskRow> {
  await store.recordTasks(runId, [imageTask(key)], now);
  const completed = await completeTask(store, key, now + 2);
  await store.recordDownloads(
    [downloadedFile(completed, 0), downloadedFile(completed, 1)],
    now + 3,
  );
  await store.markDone(await taskNow(store, key), now + 4);
  return taskNow(store, key);
}

async function withStore(
  kind: StoreKind,
  test: (store: TestStore, runId: number) => Promise<void>,
) {
  const { store, runId } = await openStoreOf(kind);
  try {
    await test(store, runId);
  } finally {
    await store.close();
  }
}

describe.each(STORE_KINDS)("the store port, method by method (%s)", (kind) => {
  it("finishes runs and finds them: latest, newest first, by tick, scheduled", async () => {
    await withStore(kind, async (store, first) => {
      const ticked = await store.createRun(newRun({ name: "daily", tick: 200, started_at: 2 }));
      const later = await store.createRun(newRun({ name: "daily", tick: 300, started_at: 3 }));
      await store.finishRun(ticked, "done", 0, 250);
      await store.finishRun(later, "stopped", 4, 350, "the gateway balance ran out");
      expect(await store.run(ticked)).toMatchObject({
        status: "done",
        exit_code: 0,
        finished_at: 250,
        stop_reason: null,
      });
      expect(await store.run(later)).toMatchObject({
        status: "stopped",
        exit_code: 4,
        stop_reason: "the gateway balance ran out",
      });
      expect((await store.runs(10)).map((run) => run.id)).toEqual([later, ticked, first]);
      expect((await store.runs(1)).map((run) => run.id)).toEqual([later]);
      expect((await store.latestRun("daily"))?.id).toBe(later);
      expect((await store.latestRun("t"))?.id).toBe(first);
      expect((await store.runOfTick("daily", 200))?.id).toBe(ticked);
      expect(await store.runOfTick("daily", 250)).toBeUndefined();
      expect((await store.scheduledRuns("daily")).map((run) => run.tick)).toEqual([300, 200]);
      expect(await store.scheduledRuns("t")).toEqual([]);
      expect(await store.run(1.5)).toBeUndefined();
    });
  });

  it("keeps the targets and unknown_cost a run began with, and lists the runs that publish", async () => {
    await withStore(kind, async (store, first) => {
      const publishing = await store.createRun(
        newRun({ publish_to: ["s3://bucket/a", "s3://bucket/b"], unknown_cost: 0.25 }),
      );
      expect(await store.run(publishing)).toMatchObject({
        publish_to: '["s3://bucket/a","s3://bucket/b"]',
        unknown_cost: 0.25,
      });
      expect(await store.run(first)).toMatchObject({ publish_to: null, unknown_cost: null });
      expect((await store.publishingRuns()).map((run) => run.id)).toEqual([publishing]);
    });
  });

  it("learns a gateway's submit rate, and learns it again", async () => {
    await withStore(kind, async (store) => {
      expect(await store.learnedRate("https://gateway.test")).toBeUndefined();
      await store.saveLearnedRate("https://gateway.test", 12.5);
      await store.saveLearnedRate("https://gateway.test", 20);
      expect(await store.learnedRate("https://gateway.test")).toBe(20);
      expect(await store.learnedRate("https://other.test")).toBeUndefined();
    });
  });

  it("lists a run's own files, less those another run's outputs also name", async () => {
    await withStore(kind, async (store, runId) => {
      const kept = await doneTask(store, runId, "k1", 1);
      await store.recordChecks(
        [
          {
            task: kept,
            checks: [
              {
                index: 0,
                ok: true,
                problems: [],
                thumbnail: "/thumbs/0.jpg",
                poster: null,
                details: {},
              },
            ],
          },
        ],
        9,
      );
      // A later tick writes its own task's output under the same file name as k1's second.
      const other = await store.createRun(newRun({ started_at: 10 }));
      await store.recordTasks(other, [imageTask("k2")], 10);
      const reused = await completeTask(store, "k2", 12);
      await store.recordDownloads([{ ...downloadedFile(reused, 0), path: "/out/1.png" }], 13);
      expect(await store.filesOfRun(runId)).toEqual(["/out/0.png", "/thumbs/0.jpg"]);
      expect(await store.filesOfRun(other)).toEqual([]);
    });
  });

  it("rebases a legacy run's paths, and every file recorded below its root", async () => {
    await withStore(kind, async (store, legacy) => {
      const located = await store.createRun({ ...newRun({}), project_dir: "/elsewhere" });
      expect((await store.legacyRuns()).map((run) => run.id)).toEqual([legacy]);
      await store.recordTasks(legacy, [imageTask("k1")], 1);
      const completed = await completeTask(store, "k1", 3);
      await store.recordDownloads(
        [
          { ...downloadedFile(completed, 0), path: "/work/proj/out/0.png" },
          { ...downloadedFile(completed, 1), path: "/mnt/other/1.png" },
        ],
        4,
      );
      await store.rebasePaths([
        { runId: legacy, root: "/work/proj", manifestPath: "m.yaml", outputDir: "out" },
      ]);
      expect(await store.run(legacy)).toMatchObject({
        manifest_path: "m.yaml",
        output_dir: "out",
        project_dir: "/work/proj",
      });
      expect((await store.outputsOf("k1")).map((output) => output.path)).toEqual([
        "out/0.png",
        "/mnt/other/1.png",
      ]);
      expect(await store.legacyRuns()).toEqual([]);
      expect((await store.run(located))?.project_dir).toBe("/elsewhere");
    });
  });

  it("gives a folder's current take of each label, and an upstream's dependants in order", async () => {
    await withStore(kind, async (store, runId) => {
      await doneTask(store, runId, "take1", 1);
      await store.recordTasks(runId, [named("hero", "j", "hero")], 1);
      const retake = await store.createRun(newRun({ started_at: 20 }));
      // take1 is job "a", label "a" (imageTask); a newer key under the label is not done yet.
      await store.recordTasks(retake, [named("take2", "a", "a")], 20);
      const current = async (job: string) =>
        (await store.currentTasksOf("/out", job)).map((task) => task.key);
      expect(await current("a")).toEqual(["take1"]);
      expect(await current("j")).toEqual(["hero"]);
      expect(await store.currentTasksOf("/nowhere", "a")).toEqual([]);

      const below = (key: string) => named(key, "clip", key, { upstreamKey: "hero" });
      await store.recordTasks(runId, [below("d2"), below("d1")], 21);
      expect((await store.dependantsOf("hero")).map((task) => task.key)).toEqual(["d2", "d1"]);
      expect(await store.dependantsOf("take1")).toEqual([]);
    });
  });

  it("records copies of outputs in other folders, replacing one in the same folder, and finds a file", async () => {
    await withStore(kind, async (store, runId) => {
      const done = await doneTask(store, runId, "k1", 1);
      const copy = {
        job_key: done.key,
        idx: 0,
        output_dir: "/other",
        path: "/other/0.png",
        thumbnail: null,
        poster: null,
        copied_at: 10,
      };
      await store.recordCopies([copy, { ...copy, idx: 1, path: "/other/1.png" }]);
      await store.recordCopies([{ ...copy, path: "/other/renamed.png", copied_at: 11 }]);
      await store.recordCopies([]);
      expect(await store.copiesOf("k1")).toEqual([
        { ...copy, path: "/other/renamed.png", copied_at: 11 },
        { ...copy, idx: 1, path: "/other/1.png" },
      ]);
      expect(await store.outputAt("/other/renamed.png")).toEqual({ key: "k1", idx: 0 });
      expect(await store.outputAt("/out/1.png")).toEqual({ key: "k1", idx: 1 });
      expect(await store.outputAt("/other/0.png")).toBeUndefined();
      expect(await store.copiesOf("k2")).toEqual([]);
    });
  });

  it("gives a claim back: pending, unclaimed, unknown submits counted, once", async () => {
    await withStore(kind, async (store, runId) => {
      await store.recordTasks(runId, [imageTask("k1")], 1);
      const claim = await claimOne(store, await taskNow(store, "k1"), "me", 2);
      if (claim === undefined) throw new Error("not claimed");
      const release = { reason: "the balance ran out", unknownSubmits: 2 };
      expect(await store.releaseClaim(claim.task, release, 3)).toBe(true);
      expect(await store.task("k1")).toMatchObject({
        state: "pending",
        claimed_by: null,
        unknown_submits: 2,
        reason: "the balance ran out",
        updated_at: 3,
      });
      expect(await store.releaseClaim(claim.task, release, 4)).toBe(false);
      expect((await taskNow(store, "k1")).unknown_submits).toBe(2);
      const logged = await store.sql(
        "SELECT type, data FROM events WHERE job_key = 'k1' ORDER BY id",
      );
      expect(logged.at(-1)).toEqual({ type: "job:pending", data: "the balance ran out" });
    });
  });

  it("polls a task polling gave up on again, in the state it had reached", async () => {
    await withStore(kind, async (store, runId) => {
      await store.recordTasks(runId, [imageTask("k1"), imageTask("k2")], 1);
      const queued = await submitTask(store, "k1", 2);
      const started = await submitTask(store, "k2", 2);
      await store.recordPollRound(
        [
          {
            task: started,
            outcome: { kind: "running", status: "processing", progress: 30, nextPollAt: 4 },
          },
        ],
        3,
      );
      for (const key of ["k1", "k2"])
        await store.failTask(
          await taskNow(store, key),
          ["submitted", "processing"],
          "failed",
          "gave up",
          5,
        );
      expect(await store.repoll(await taskNow(store, "k1"), 9)).toBe(true);
      expect(await store.repoll(await taskNow(store, "k2"), 9)).toBe(true);
      const again = { reason: null, next_poll_at: 9, submitted_at: 9, task_id: "task-k1" };
      expect(await store.task("k1")).toMatchObject({ state: "submitted", ...again });
      expect(await store.task("k2")).toMatchObject({ state: "processing", reason: null });
      // Only a failed task.
      expect(await store.repoll(queued, 10)).toBe(false);
    });
  });

  it("downloads a done task's outputs again, or checks them again", async () => {
    await withStore(kind, async (store, runId) => {
      const gone = await doneTask(store, runId, "k1", 1);
      const thumbless = await doneTask(store, runId, "k2", 1);
      expect(await store.redownload(gone, 9)).toBe(true);
      expect(await store.task("k1")).toMatchObject({ state: "completed", done_at: null });
      expect(
        (await store.outputsOf("k1")).map((output) => [output.state, output.path, output.sha256]),
      ).toEqual([
        ["pending", null, null],
        ["pending", null, null],
      ]);
      expect(await store.redownload(gone, 10)).toBe(false);

      expect(await store.recheck(thumbless, 9)).toBe(true);
      expect(await store.task("k2")).toMatchObject({ state: "downloaded", done_at: null });
      expect((await store.outputsOf("k2")).map((output) => output.path)).toEqual([
        "/out/0.png",
        "/out/1.png",
      ]);
      expect(await store.recheck(thumbless, 10)).toBe(false);
    });
  });

  it("replaces a completed task's output links by index", async () => {
    await withStore(kind, async (store, runId) => {
      await store.recordTasks(runId, [imageTask("k1")], 1);
      await completeTask(store, "k1", 3);
      await store.updateLinks("k1", [
        { url: "https://x.invalid/new-0.png", expiresAt: 99 },
        { url: "https://x.invalid/new-1.png", expiresAt: null },
      ]);
      await store.updateLinks("k1", []);
      expect(
        (await store.outputsOf("k1")).map((output) => [
          output.url,
          output.expires_at,
          output.state,
        ]),
      ).toEqual([
        ["https://x.invalid/new-0.png", 99, "pending"],
        ["https://x.invalid/new-1.png", null, "pending"],
      ]);
      expect((await taskNow(store, "k1")).state).toBe("completed");
    });
  });

  it("records a manifest's ticks: not run, started, taken up again, finished, pruned", async () => {
    await withStore(kind, async (store, runId) => {
      const skipped = {
        name: "daily",
        tick: 100,
        trigger: "on-time",
        reason: "still running",
      } as const;
      await store.recordTickNotRun({ ...skipped, status: "skipped" }, 101);
      const started = await store.startTick({ name: "daily", tick: 200, trigger: "on-time" }, 201);
      expect((await store.unfinishedTicks("daily")).map((tick) => tick.id)).toEqual([started]);
      // The same tick started again (the scheduler was restarted) is taken up, not doubled.
      const resumed = await store.startTick({ name: "daily", tick: 200, trigger: "resumed" }, 205);
      expect(resumed).toBe(started);
      expect(await store.lastTickAt("daily")).toBe(200);
      await store.finishTick(started, { runId, exitCode: 0, status: "finished" }, 250);
      expect(await store.unfinishedTicks("daily")).toEqual([]);
      expect(await store.ticksOf("daily", 10)).toMatchObject([
        {
          tick: 200,
          status: "finished",
          trigger: "resumed",
          run_id: runId,
          exit_code: 0,
          fired_at: 205,
          finished_at: 250,
        },
        { tick: 100, status: "skipped", reason: "still running", fired_at: 101, run_id: null },
      ]);
      expect(await store.ticksOf("daily", 1)).toHaveLength(1);
      await store.deleteTicksBefore("daily", 150);
      expect((await store.ticksOf("daily", 10)).map((tick) => tick.tick)).toEqual([200]);
      expect(await store.lastTickAt("weekly")).toBeUndefined();
      const another = await store.startTick({ name: "daily", tick: 300, trigger: "catch-up" }, 301);
      expect(another).not.toBe(started);
    });
  });

  it("lends a manifest's lease to one holder: taken, refused, renewed, released, taken over", async () => {
    await withStore(kind, async (store) => {
      const holder = (n: number) => ({ id: `host:${n}:x`, host: "host", pid: n });
      const alive = () => false;
      expect(await store.acquireLease("daily", holder(1), 1000, 5000, alive)).toEqual({
        acquired: true,
      });
      const refused = await store.acquireLease("daily", holder(2), 2000, 5000, alive);
      expect(refused).toMatchObject({
        acquired: false,
        lease: { holder: "host:1:x", expires_at: 6000 },
      });
      expect(await store.renewLease("daily", "host:1:x", 3000, 5000)).toBe(true);
      expect(await store.renewLease("daily", "host:2:x", 3000, 5000)).toBe(false);
      expect((await store.leaseOf("daily"))?.expires_at).toBe(8000);
      // Its holder is gone: the next asker takes it over.
      expect(await store.acquireLease("daily", holder(2), 4000, 5000, () => true)).toEqual({
        acquired: true,
      });
      await store.releaseLease("daily", "host:1:x");
      expect((await store.leaseOf("daily"))?.holder).toBe("host:2:x");
      await store.releaseLease("daily", "host:2:x");
      expect(await store.leaseOf("daily")).toBeUndefined();
      // An expired lease is taken by whoever asks.
      await store.acquireLease("weekly", holder(3), 1000, 10, alive);
      expect(await store.acquireLease("weekly", holder(4), 2000, 10, alive)).toEqual({
        acquired: true,
      });
    });
  });
});
