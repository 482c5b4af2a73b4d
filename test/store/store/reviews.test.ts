import { describe, expect, it } from "vitest";
import type { Store, TaskRow } from "../../../src/store/index.js";
import { claimOne, imageTask, openStoreOf, STORE_KINDS } from "../../helpers/store.js";

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const row of rows) all.push(row);
  return all;
}

async function row(store: Store, key: string): Promise<TaskRow> {
  const found = await store.task(key);
  if (found === undefined) throw new Error(`no task ${key}`);
  return found;
}

/** Claims `key` and records the gateway's answer `taskId`; what `recordReceipts` said. */
async function submit(store: Store, key: string, taskId: string, now: number) {
  const claim = await claimOne(store, await row(store, key), "me", now);
  if (claim === undefined) throw new Error(`could not claim ${key}`);
  const receipt = {
    task: claim.task,
    taskId,
    status: "submitted" as const,
    nextPollAt: now + 1,
    unknownSubmits: 0,
  };
  return store.recordReceipts([receipt], now);
}

/** Takes `key` from pending to downloaded with one output, as a run does. */
async function downloaded(store: Store, key: string, now: number): Promise<void> {
  await submit(store, key, `task-${key}`, now);
  const links = [{ url: `https://x.invalid/${key}.png`, expiresAt: null }];
  await store.recordPollRound(
    [{ task: await row(store, key), outcome: { kind: "completed", links, cost: 0.1 } }],
    now + 1,
  );
  const task = await row(store, key);
  const file = { task, idx: 0, path: `/out/${key}.png`, bytes: 3, sha256: "abc" };
  await store.recordDownloads([{ ...file, contentType: "image/png" }], now + 2);
}

describe.each(STORE_KINDS)("store (%s): task variables, reviews, notices", (kind) => {
  it("refuses a task id another task holds already, naming that task", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(runId, [imageTask("k1"), { ...imageTask("k2"), label: "b" }], 1);
    expect((await submit(store, "k1", "same", 2)).duplicates).toEqual(new Map());
    const second = await submit(store, "k2", "same", 3);
    expect(second).toEqual({ events: [], duplicates: new Map([["k2", "a"]]) });
    expect(await store.task("k2")).toMatchObject({ state: "submitting", task_id: null });
    await store.close();
  });

  it("records a task's matrix variables, repeat and take, and reads them back", async () => {
    const { store, runId } = await openStoreOf(kind);
    const varied = { ...imageTask("k1"), vars: { style: "ink", n: 2 }, repeatIndex: 1, take: 3 };
    await store.recordTasks(runId, [varied, { ...imageTask("k2"), vars: {} }], 1);
    expect(await store.task("k1")).toMatchObject({
      vars: JSON.stringify({ style: "ink", n: 2 }),
      repeat_index: 1,
      take: 3,
    });
    expect(await store.task("k2")).toMatchObject({ vars: null, repeat_index: 0, take: 1 });
    await store.close();
  });

  it("records, replaces and clears a review of a downloaded output, and reports it", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(runId, [imageTask("k1"), { ...imageTask("k2"), label: "b" }], 1);
    await downloaded(store, "k1", 2);
    await downloaded(store, "k2", 10);
    const review = (key: string, index: number, decision: "approved" | "rejected" | null) =>
      store.recordReview({ key, index, decision, note: decision === null ? null : "n" }, 20);
    // Only an output on disk can be judged.
    expect(await review("k1", 5, "approved")).toBe(false);
    expect(await review("k1", 0, "rejected")).toBe(true);
    expect(await review("k1", 0, "approved")).toBe(true);
    // An agent's decision (`gwrun mcp`) says who made it; a person's names no one.
    expect(
      await store.recordReview(
        { key: "k2", index: 0, decision: "rejected", note: "n", by: "agent" },
        20,
      ),
    ).toBe(true);
    expect(await store.reviewsOf({ run: runId })).toEqual([
      { job_key: "k1", idx: 0, decision: "approved", note: "n", decided_at: 20, reviewer: null },
      { job_key: "k2", idx: 0, decision: "rejected", note: "n", decided_at: 20, reviewer: "agent" },
    ]);
    expect((await store.summaryOf({ run: runId })).reviews).toEqual({ approved: 1, rejected: 1 });
    const reported = await collect(store.reportRows({ run: runId }));
    expect(reported.map((entry) => entry.output?.review)).toEqual(["approved", "rejected"]);
    expect(reported.map((entry) => entry.output?.review_by)).toEqual([null, "agent"]);
    expect(reported[0]?.task).toMatchObject({ vars: null, repeat_index: 0, take: 1 });
    expect(await review("k2", 0, null)).toBe(true);
    expect(await store.reviewsOf({ folder: "/out" })).toHaveLength(1);
    const grid = await store.gridPageOf(runId, { offset: 0, limit: 10 });
    expect(grid.total).toBe(2);
    expect(grid.rows).toEqual([
      {
        key: "k1",
        job_id: "a",
        label: "a",
        vars: null,
        repeat_index: 0,
        take: 1,
        idx: 0,
        content_type: "image/png",
        pictured: 0,
        check_state: null,
        review: "approved",
        review_note: "n",
        review_by: null,
        judge_verdict: null,
        judge_reason: null,
      },
      expect.objectContaining({ key: "k2", review: null, review_note: null }),
    ]);
    // Forgetting the run forgets its reviews.
    await store.deleteRun(runId);
    expect(await store.reviewsOf({ run: runId })).toEqual([]);
    await store.close();
  });

  it("a judgement is asked once and recorded once, its cost added to its task's; judged outputs come with the person's decision", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(runId, [imageTask("k1")], 1);
    await downloaded(store, "k1", 2);
    const asked = await store.askJudge({ key: "k1", idx: 0, model: "acme-5" }, 10);
    expect(asked).toMatchObject({ state: "asking", verdict: null, asked_at: 10 });
    // Asked again (a process that resumes): the row as it stands, not a new one.
    expect(await store.askJudge({ key: "k1", idx: 0, model: "acme-5" }, 11)).toMatchObject({
      state: "asking",
      asked_at: 10,
    });
    const answer = {
      key: "k1",
      idx: 0,
      verdict: "fail" as const,
      reason: "cut off",
      answer: "No. Cut off.",
      cost: 0.01,
    };
    expect(await store.recordJudgement(answer, 12)).toBe(true);
    // Recorded once: a second recording (another process, a repeat) changes nothing, pays nothing.
    expect(await store.recordJudgement({ ...answer, verdict: "pass", cost: 5 }, 13)).toBe(false);
    expect((await store.task("k1"))?.cost).toBeCloseTo(0.11);
    expect(await store.judgementsOf("k1")).toMatchObject([
      { state: "judged", verdict: "fail", reason: "cut off", cost: 0.01, judged_at: 12 },
    ]);
    await store.recordReview({ key: "k1", index: 0, decision: "approved", note: "fine" }, 14);
    expect(await store.judgedOutputs({ run: runId })).toEqual([
      {
        job_key: "k1",
        job_id: "a",
        label: "a",
        take: 1,
        idx: 0,
        verdict: "fail",
        reason: "cut off",
        model: "acme-5",
        cost: 0.01,
        decision: "approved",
        note: "fine",
      },
    ]);
    expect((await store.gridPageOf(runId, { offset: 0, limit: 10 })).rows[0]).toMatchObject({
      judge_verdict: "fail",
      judge_reason: "cut off",
    });
    await store.deleteRun(runId);
    expect(await store.judgementsOf("k1")).toEqual([]);
    await store.close();
  });

  it("keeps a run's notices, newest first, and its tasks' times", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(
      runId,
      [imageTask("k1"), { ...imageTask("s1"), label: "s", placeholder: true }],
      1,
    );
    await downloaded(store, "k1", 2);
    for (const [at, type] of [
      [5, "gateway:rate-limited"],
      [6, "run:stopping"],
      [7, "something:else"],
    ] as const)
      await store.recordRunNotice(runId, { at, type, message: `m${at}` });
    expect(await store.runNoticesOf(runId, 5)).toEqual([
      { at: 6, type: "run:stopping", message: "m6" },
      { at: 5, type: "gateway:rate-limited", message: "m5" },
    ]);
    expect(await store.runNoticesOf(runId, 1)).toHaveLength(1);
    const page = {
      offset: 0,
      limit: 10,
      startedAt: 0,
      order: "recorded",
      undoneOnly: false,
    } as const;
    expect((await store.timelinePageOf(runId, page)).rows).toEqual([
      {
        key: "k1",
        job_id: "a",
        label: "a",
        state: "downloaded",
        reason: null,
        queued_at: 1,
        submitted_at: 2,
        completed_at: 3,
        downloaded_at: 4,
        done_at: null,
        updated_at: 4,
      },
    ]);
    await store.close();
  });
});
