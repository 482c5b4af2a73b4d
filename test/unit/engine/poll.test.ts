import { describe, expect, it } from "vitest";
import { Poller, pollOutcome } from "../../../src/engine/poll.js";
import type { TaskRecord } from "../../../src/gateway/index.js";
import { type TaskRow, TaskState } from "../../../src/store/index.js";
import { taskRow } from "../../helpers/task-row.js";

const NEXT_POLL = 5_000;

function held(fields: Partial<TaskRow> = {}): TaskRow {
  return taskRow({ state: TaskState.Submitted, task_id: "task-1", ...fields });
}

function record(fields: Partial<TaskRecord> = {}): TaskRecord {
  return {
    id: "task-1",
    status: "processing",
    progress: null,
    created: null,
    completed: null,
    actualTime: null,
    estimatedTime: null,
    cost: null,
    errorMessage: null,
    result: null,
    raw: {},
    ...fields,
  };
}

describe("poll outcome", () => {
  it("completes a task with its output links and cost", () => {
    const answer = record({
      status: "completed",
      cost: 0.04,
      result: {
        expires_at: 1_800_000_000,
        images: [{ url: ["https://cdn.example/a.png"] }, { url: ["https://cdn.example/b.png"] }],
      },
    });
    const twoImages = held({ family: "image-b", request: JSON.stringify({ n: 2 }) });
    expect(pollOutcome(twoImages, answer, false, NEXT_POLL)).toEqual({
      kind: "completed",
      links: [
        { url: "https://cdn.example/a.png", expiresAt: 1_800_000_000_000 },
        { url: "https://cdn.example/b.png", expiresAt: 1_800_000_000_000 },
      ],
      cost: 0.04,
    });
  });

  it("keeps the links a task was promised and counts the rest as surplus", () => {
    const urls = Array.from({ length: 5 }, (_, i) => ({ url: [`https://cdn.example/${i}.png`] }));
    const answer = record({ status: "completed", result: { images: urls } });
    expect(pollOutcome(held(), answer, false, NEXT_POLL)).toMatchObject({
      kind: "completed",
      links: [{ url: "https://cdn.example/0.png" }],
      surplus: 4,
    });
  });

  it("completes a task with a null cost when the gateway names none", () => {
    const answer = record({
      status: "completed",
      result: { videos: ["https://cdn.example/v.mp4"] },
    });
    expect(pollOutcome(held(), answer, false, NEXT_POLL)).toMatchObject({
      kind: "completed",
      cost: null,
    });
  });

  it.each([
    ["no result", null],
    ["an empty result", {}],
    ["an empty image list", { images: [] }],
    ["links that are not http URLs", { images: [{ url: ["data:image/png;base64,AAAA"] }] }],
  ])("polls a completed task whose result holds no output URL (%s) 3 times more, then fails it", (_, result) => {
    const answer = record({ status: "completed", result, progress: 100 });
    for (const before of [0, 1, 2])
      expect(pollOutcome(held(), answer, false, NEXT_POLL, undefined, before)).toEqual({
        kind: "unpublished",
        progress: 100,
        nextPollAt: NEXT_POLL,
      });
    expect(pollOutcome(held(), answer, false, NEXT_POLL, undefined, 3)).toEqual({
      kind: "failed",
      to: "failed",
      reason: "the task completed but its result held no output URL in 4 answers",
    });
  });

  it("fails a failed task with the gateway's message", () => {
    const answer = record({ status: "failed", errorMessage: "content policy violation" });
    expect(pollOutcome(held(), answer, false, NEXT_POLL)).toEqual({
      kind: "failed",
      to: "failed",
      reason: "the task failed: content policy violation",
    });
  });

  it("fails a failed task with 'no reason given' when the gateway gives no message", () => {
    const answer = record({ status: "failed", errorMessage: null });
    expect(pollOutcome(held(), answer, false, NEXT_POLL)).toEqual({
      kind: "failed",
      to: "failed",
      reason: "the task failed: no reason given",
    });
  });

  it("keeps a processing task running with the record's progress and the next poll time", () => {
    const answer = record({ status: "processing", progress: 40 });
    expect(pollOutcome(held({ progress: 10 }), answer, false, NEXT_POLL)).toEqual({
      kind: "running",
      status: "processing",
      progress: 40,
      nextPollAt: NEXT_POLL,
    });
  });

  it("keeps a submitted task running as submitted", () => {
    const answer = record({ status: "submitted", progress: 0 });
    expect(pollOutcome(held(), answer, false, NEXT_POLL)).toEqual({
      kind: "running",
      status: "submitted",
      progress: 0,
      nextPollAt: NEXT_POLL,
    });
  });

  it("treats a status it does not know as still running", () => {
    const answer = record({ status: "queued", progress: 5 });
    expect(pollOutcome(held(), answer, false, NEXT_POLL)).toEqual({
      kind: "running",
      status: "submitted",
      progress: 5,
      nextPollAt: NEXT_POLL,
    });
  });

  it("keeps the task's last progress when the record has none", () => {
    const answer = record({ status: "processing", progress: null });
    expect(pollOutcome(held({ progress: 55 }), answer, false, NEXT_POLL)).toMatchObject({
      kind: "running",
      progress: 55,
    });
  });

  it("reports progress 0 when neither the record nor the task has any", () => {
    const answer = record({ status: "processing", progress: null });
    expect(pollOutcome(held({ progress: null }), answer, false, NEXT_POLL)).toMatchObject({
      kind: "running",
      progress: 0,
    });
  });

  it("decides nothing for a task the answer did not mention", () => {
    expect(pollOutcome(held(), undefined, false, NEXT_POLL)).toEqual({ kind: "later" });
  });

  it("expires a task the gateway named unknown", () => {
    expect(pollOutcome(held({ task_id: "task-9" }), undefined, true, NEXT_POLL)).toEqual({
      kind: "failed",
      to: "expired",
      reason: "task task-9 does not exist or has expired at the gateway",
    });
  });
});

/** A poller holding one task per `[key, nextPollAt]`. */
function pollerWith(
  tasks: [key: string, nextPollAt: number][],
  options = { batchSize: 10, coalesceMs: 100, everyMs: 1_000 },
): Poller {
  const poller = new Poller(options);
  for (const [key, nextPollAt] of tasks) poller.track(held({ key }), nextPollAt);
  return poller;
}

const keysOf = (batches: TaskRow[][]) => batches.map((batch) => batch.map((task) => task.key));

describe("poller", () => {
  it("asks about nothing before any task is due", () => {
    const poller = pollerWith([
      ["a", 1_000],
      ["b", 2_000],
    ]);
    expect(poller.due(999)).toEqual([]);
  });

  it("lets a due task wait for company while other held tasks are not due, up to coalesceMs", () => {
    const poller = pollerWith([
      ["a", 1_000],
      ["b", 5_000],
    ]);
    expect(poller.due(1_000)).toEqual([]);
    expect(poller.due(1_099)).toEqual([]);
    expect(keysOf(poller.due(1_100))).toEqual([["a"]]);
  });

  it("takes tasks that fall due while another waits into the same batch", () => {
    const poller = pollerWith([
      ["a", 1_000],
      ["b", 1_060],
      ["c", 5_000],
    ]);
    expect(poller.due(1_060)).toEqual([]);
    expect(keysOf(poller.due(1_100))).toEqual([["a", "b"]]);
  });

  it("polls at once when every held task is due", () => {
    const poller = pollerWith([
      ["a", 1_000],
      ["b", 990],
    ]);
    expect(keysOf(poller.due(1_000))).toEqual([["b", "a"]]);
  });

  it("polls at once when a full batch is due", () => {
    const poller = pollerWith(
      [
        ["a", 1_000],
        ["b", 1_000],
        ["c", 9_000],
      ],
      { batchSize: 2, coalesceMs: 100, everyMs: 1_000 },
    );
    expect(keysOf(poller.due(1_000))).toEqual([["a", "b"]]);
  });

  it("holds back a partial last batch that has not waited long enough", () => {
    const poller = pollerWith(
      [
        ["a", 1_000],
        ["b", 1_000],
        ["c", 1_000],
        ["d", 9_000],
      ],
      { batchSize: 2, coalesceMs: 100, everyMs: 1_000 },
    );
    expect(keysOf(poller.due(1_000))).toEqual([["a", "b"]]);
    expect(keysOf(poller.due(1_100))).toEqual([["a", "b"], ["c"]]);
  });

  it("splits due tasks into batches of at most batchSize, longest waiting first", () => {
    const poller = pollerWith(
      [
        ["e", 500],
        ["b", 200],
        ["d", 400],
        ["a", 100],
        ["c", 300],
      ],
      { batchSize: 2, coalesceMs: 100, everyMs: 1_000 },
    );
    expect(keysOf(poller.due(1_000))).toEqual([["a", "b"], ["c", "d"], ["e"]]);
  });

  it("polls a task from the time it was last tracked", () => {
    const poller = pollerWith([["a", 1_000]]);
    poller.track(held({ key: "a" }), 3_000);
    expect(poller.size).toBe(1);
    expect(poller.due(2_000)).toEqual([]);
    expect(keysOf(poller.due(3_000))).toEqual([["a"]]);
  });

  it("stops polling an untracked task", () => {
    const poller = pollerWith([
      ["a", 1_000],
      ["b", 1_000],
    ]);
    expect(poller.untrack("a")).toBe(true);
    expect(poller.untrack("a")).toBe(false);
    expect(poller.has("a")).toBe(false);
    expect(poller.size).toBe(1);
    expect(keysOf(poller.due(1_000))).toEqual([["b"]]);
  });

  it("stops waiting for company once the only other held task is untracked", () => {
    const poller = pollerWith([
      ["a", 1_000],
      ["b", 5_000],
    ]);
    expect(poller.due(1_000)).toEqual([]);
    poller.untrack("b");
    expect(keysOf(poller.due(1_000))).toEqual([["a"]]);
  });

  it("keeps a processing task processing when the gateway answers a status it does not know", () => {
    const answer = record({ status: "queued", progress: null });
    const task = held({ state: TaskState.Processing, progress: 30 });
    expect(pollOutcome(task, answer, false, NEXT_POLL)).toMatchObject({
      kind: "running",
      status: "processing",
      progress: 30,
    });
  });
});
