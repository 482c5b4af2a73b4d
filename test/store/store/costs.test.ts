import { describe, expect, it } from "vitest";
import type { NewTask } from "../../../src/store/index.js";
import {
  claimOne,
  completeTask,
  openStoreOf,
  STORE_KINDS,
  submitTask,
  taskNow,
} from "../../helpers/store.js";

const DAY = 86_400_000;
/** 2024-03-01 and the day after, at noon UTC. */
const FIRST = Date.UTC(2024, 2, 1, 12);
const SECOND = FIRST + DAY;

const task = (
  key: string,
  jobId: string,
  model: string,
  estimatedCost: number | null,
  family = "image-a",
): NewTask => ({
  key,
  jobId,
  label: key,
  family,
  lane: family.startsWith("text") ? "text" : "image",
  endpoint: family.startsWith("text") ? "/v1/chat/completions" : "/v1/images/generations",
  request: JSON.stringify({ model, prompt: "p" }),
  upstreamKey: null,
  estimatedCost,
});

describe.each(STORE_KINDS)("store (%s): what cost reports read", (kind) => {
  it("sums what each run paid by job, model, family and day, with the estimates beside it", async () => {
    const { store, runId: first } = await openStoreOf(kind);
    try {
      await store.recordTasks(
        first,
        [
          task("hero-1", "hero", "acme-image-2", 0.2),
          task("hero-2", "hero", "acme-image-2", 0.2),
          task("fast-1", "fast", "acme-imagine-1.0-fast", 0.25, "image-d"),
          task("cap-1", "cap", "acme-5", 0.002, "text-chat"),
          // Never paid: one failed, one never sent.
          task("hero-3", "hero", "acme-image-2", 0.2),
          task("hero-4", "hero", "acme-image-2", 0.2),
        ],
        1,
      );
      // The gateway reports 0.25 for each image (helpers' completeTask).
      await completeTask(store, "hero-1", FIRST);
      await completeTask(store, "hero-2", SECOND);
      await completeTask(store, "fast-1", SECOND);
      const claim = await claimOne(store, await taskNow(store, "cap-1"), "me", FIRST);
      if (claim === undefined) throw new Error("cap-1 not claimed");
      // A text answer's cost is its usage at the manifest's price, kept with the answer.
      await store.recordTextAnswer(
        { ...claim.task, cost: 0.0015 },
        {
          format: "chat",
          model: "acme-5",
          text: "a caption",
          choices: 1,
          finish_reason: "stop",
          usage: JSON.stringify({ prompt_tokens: 250, completion_tokens: 125 }),
          tool_calls: "[]",
          refusal: null,
          streamed: 0,
        },
        [{ path: "/out/cap-1.txt", bytes: 10, sha256: "abc", contentType: "text/plain" }],
        FIRST,
      );
      const failed = await submitTask(store, "hero-3", FIRST);
      await store.recordPollRound(
        [{ task: failed, outcome: { kind: "failed", to: "failed", reason: "refused" } }],
        FIRST + 1,
      );

      expect(await store.costReport({ run: first }, "job")).toEqual({
        spent: 0.7515,
        estimate: 0.652,
        atUnknownCost: 0,
        unpriced: 0,
        groups: [
          { key: "hero", spent: 0.5, estimate: 0.4, atUnknownCost: 0, unpriced: 0, tasks: 2 },
          { key: "fast", spent: 0.25, estimate: 0.25, atUnknownCost: 0, unpriced: 0, tasks: 1 },
          { key: "cap", spent: 0.0015, estimate: 0.002, atUnknownCost: 0, unpriced: 0, tasks: 1 },
        ],
      });
      expect((await store.costReport({ run: first }, "model")).groups.map((g) => g.key)).toEqual([
        "acme-image-2",
        "acme-imagine-1.0-fast",
        "acme-5",
      ]);
      expect((await store.costReport({ run: first }, "family")).groups).toEqual([
        { key: "image-a", spent: 0.5, estimate: 0.4, atUnknownCost: 0, unpriced: 0, tasks: 2 },
        { key: "image-d", spent: 0.25, estimate: 0.25, atUnknownCost: 0, unpriced: 0, tasks: 1 },
        {
          key: "text-chat",
          spent: 0.0015,
          estimate: 0.002,
          atUnknownCost: 0,
          unpriced: 0,
          tasks: 1,
        },
      ]);
      expect((await store.costReport({ run: first }, "day")).groups).toEqual([
        {
          key: "2024-03-01",
          spent: 0.2515,
          estimate: 0.202,
          atUnknownCost: 0,
          unpriced: 0,
          tasks: 2,
        },
        { key: "2024-03-02", spent: 0.5, estimate: 0.45, atUnknownCost: 0, unpriced: 0, tasks: 2 },
      ]);

      // A second run pays for its own task: the run's report holds it alone, the store's both.
      const second = await store.createRun({
        name: "t",
        manifest_path: "/m.yaml",
        manifest_text: "version: 1",
        base_url: "sim",
        output_dir: "/out",
        started_at: 2,
      });
      await store.recordTasks(second, [task("late-1", "late", "acme-image-2", null)], SECOND);
      await completeTask(store, "late-1", SECOND + 10);
      expect(await store.costReport({ run: second }, "job")).toEqual({
        spent: 0.25,
        estimate: 0,
        atUnknownCost: 0,
        unpriced: 1,
        groups: [
          { key: "late", spent: 0.25, estimate: 0, atUnknownCost: 0, unpriced: 1, tasks: 1 },
        ],
      });
      const all = await store.costReport({ all: true }, "day");
      expect(all.spent).toBe(1.0015);
      expect(all.groups.map((group) => [group.key, group.tasks])).toEqual([
        ["2024-03-01", 2],
        ["2024-03-02", 3],
      ]);
    } finally {
      await store.close();
    }
  });
});
