import { describe, expect, it } from "vitest";
import type { NewTask, Store, TaskRow } from "../../../src/store/index.js";
import { claimOne, openStoreOf, STORE_KINDS } from "../../helpers/store.js";

function task(key: string, upstreamKey: string | null, placeholder = false): NewTask {
  return {
    key,
    jobId: key,
    label: key,
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: "{}",
    upstreamKey,
    estimatedCost: null,
    placeholder,
  };
}

async function row(store: Store, key: string): Promise<TaskRow> {
  const found = await store.task(key);
  if (found === undefined) throw new Error(`no task ${key}`);
  return found;
}

describe.each(STORE_KINDS)("dependant bookkeeping in the store (%s)", (kind) => {
  it("drops an upstream's stand-ins down the chain, and nothing else", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(runId, [task("up", null)], 1);
    // The upstream failed once: its stand-in was recorded skipped.
    await store.recordSkipped(
      runId,
      await row(store, "up"),
      [task("stand-in", "up", true)],
      "x",
      2,
    );
    expect(await store.task("stand-in")).toMatchObject({
      state: "skipped",
      reason: "upstream up failed: x",
    });
    await store.recordTasks(
      runId,
      [task("real", "up"), task("below", "stand-in", true), task("other", "elsewhere", true)],
      3,
    );
    // It succeeded since: its stand-ins (and theirs) go.
    const recorded = await store.recordDependants(runId, await row(store, "up"), [], 4);
    expect(recorded).toEqual({ dependants: [], events: [] });
    expect((await store.tasksOf(runId)).map((row) => row.key)).toEqual(["up", "real", "other"]);
    expect((await store.task("real"))?.placeholder).toBe(0);
    expect(await store.task("stand-in")).toBeUndefined();
    expect(await store.task("below")).toBeUndefined();
    await store.close();
  });

  it("binds a request afresh only while the job is pending and real", async () => {
    const { store, runId } = await openStoreOf(kind);
    // `c` is a stand-in (of another upstream, so it is not dropped here).
    await store.recordTasks(
      runId,
      [
        task("up", null),
        task("a", "up"),
        task("b", "up"),
        task("c", "elsewhere", true),
        task("d", "up"),
      ],
      1,
    );
    await claimOne(store, await row(store, "b"), "me", 2);
    const fresh = '{"url":"new"}';
    const dependants = (keys: string[]) =>
      keys.map((key) => ({
        task: { ...task(key, key === "c" ? "elsewhere" : "up", key === "c"), request: fresh },
        // `d`'s input cannot be sent: it is not bound to it.
        problem: key === "d" ? "dead link" : null,
      }));
    const requests = (recorded: { dependants: { task: TaskRow }[] }) =>
      recorded.dependants.map((entry) => [entry.task.key, entry.task.request]);
    const first = await store.recordDependants(
      runId,
      await row(store, "up"),
      dependants(["a", "b", "c", "d"]),
      3,
    );
    expect(requests(first)).toEqual([
      ["a", fresh],
      ["b", "{}"],
      ["c", "{}"],
      ["d", "{}"],
    ]);
    expect(first.dependants.map((entry) => entry.fresh)).toEqual([false, false, false, false]);
    expect(first.events).toEqual([]);
    // Bound again: nothing changes.
    const again = await store.recordDependants(runId, await row(store, "up"), dependants(["a"]), 4);
    expect(requests(again)).toEqual([["a", fresh]]);
    expect((await store.task("a"))?.request).toBe(fresh);
    expect((await store.task("b"))?.request).toBe("{}");
    expect((await store.task("c"))?.request).toBe("{}");
    expect((await store.task("d"))?.request).toBe("{}");
    await store.close();
  });

  it("keeps one answer per text job, replaced when the job is redone", async () => {
    const { store, runId } = await openStoreOf(kind);
    await store.recordTasks(runId, [task("t", null)], 1);
    const answer = {
      format: "chat",
      model: "acme-5",
      text: "first",
      choices: 1,
      finish_reason: "stop",
      usage: '{"prompt_tokens":3}',
      tool_calls: "[]",
      refusal: null,
      streamed: 0,
    };
    const files = [{ path: "/out/t.txt", bytes: 5, sha256: "abc", contentType: "text/plain" }];
    const answerOnce = async (text: string, streamed: number, now: number) => {
      const claim = await claimOne(store, await row(store, "t"), "me", now);
      if (claim === undefined) throw new Error("not claimed");
      return store.recordTextAnswer(claim.task, { ...answer, text, streamed }, files, now);
    };
    expect((await answerOnce("first", 0, 2)).moved).toBe(true);
    // An answer for a task not being submitted is not kept.
    expect(
      (await store.recordTextAnswer(await row(store, "t"), { ...answer, text: "stray" }, files, 3))
        .moved,
    ).toBe(false);
    expect(await store.requeue(await row(store, "t"), ["downloaded"], null, 4)).toBe(true);
    expect((await answerOnce("second", 1, 5)).moved).toBe(true);
    expect(await store.textAnswer("t")).toMatchObject({
      text: "second",
      streamed: 1,
      answered_at: 5,
    });
    expect((await store.textAnswersOf(runId)).map((row) => [row.label, row.text])).toEqual([
      ["t", "second"],
    ]);
    expect(await store.task("t")).toMatchObject({ state: "downloaded", claimed_by: null });
    expect((await store.outputsOf("t")).map((output) => [output.state, output.path])).toEqual([
      ["downloaded", "/out/t.txt"],
    ]);
    await store.close();
  });
});
