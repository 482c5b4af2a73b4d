import { describe, expect, it } from "vitest";
import type { NewTask } from "../../../src/store/index.js";
import { imageTask, openStoreOf, STORE_KINDS, submitTask } from "../../helpers/store.js";

/**
 * A run read a page at a time (`taskPage`), on both adapters: its start reads every task, its
 * queue the pending tasks each lane sends in their turn, in the order they were recorded.
 */

const task = (key: string, more: Partial<NewTask> = {}): NewTask => ({
  ...imageTask(key),
  ...more,
});

describe.each(STORE_KINDS)("a run's tasks page by page (%s)", (kind) => {
  it("reads a run's tasks in the order recorded, each once, page after page", async () => {
    const { store, runId } = await openStoreOf(kind);
    try {
      const other = await store.createRun({
        name: "other",
        manifest_path: "/m.yaml",
        manifest_text: "version: 1",
        base_url: "sim",
        output_dir: "/elsewhere",
        started_at: 1,
      });
      // Another run's tasks recorded between this run's: not this run's to read.
      await store.recordTasks(
        runId,
        ["c", "a"].map((key) => task(key)),
        1,
      );
      await store.recordTasks(other, [task("x")], 2);
      await store.recordTasks(
        runId,
        ["e", "b", "d"].map((key) => task(key)),
        3,
      );
      const keys: string[] = [];
      for (let after = 0; ; ) {
        const page = await store.taskPage(runId, "all", after, 2);
        keys.push(...page.map((found) => found.task.key));
        if (page.length < 2) break;
        after = page.at(-1)?.place ?? after;
      }
      expect(keys).toEqual(["c", "a", "e", "b", "d"]);
      expect((await store.taskPage(other, "all", 0, 10)).map((found) => found.task.key)).toEqual([
        "x",
      ]);
    } finally {
      await store.close();
    }
  });

  it("a lane's queue holds its pending tasks only, not a first take waiting for its upstream", async () => {
    const { store, runId } = await openStoreOf(kind);
    try {
      await store.recordTasks(
        runId,
        [
          task("sent"),
          task("still"),
          task("clip", { lane: "video", family: "video-1" }),
          task("waits", { upstreamKey: "still" }),
          task("retake", { upstreamKey: "still", take: 2 }),
          task("stand-in", { upstreamKey: "still", placeholder: true }),
          task("answer", { lane: "text", family: null }),
        ],
        1,
      );
      await submitTask(store, "sent", 2);
      const queue = async (of: "image-queue" | "video-queue") =>
        (await store.taskPage(runId, of, 0, 10)).map((found) => found.task.key);
      expect(await queue("image-queue")).toEqual(["still", "retake", "answer"]);
      expect(await queue("video-queue")).toEqual(["clip"]);
      const [first] = await store.taskPage(runId, "image-queue", 0, 1);
      const rest = await store.taskPage(runId, "image-queue", first?.place ?? 0, 10);
      expect(rest.map((found) => found.task.key)).toEqual(["retake", "answer"]);
      expect(rest[0]?.task).toMatchObject({ state: "pending", take: 2, upstream_key: "still" });
    } finally {
      await store.close();
    }
  });
});
