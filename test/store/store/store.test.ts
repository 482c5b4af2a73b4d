import { describe, expect, it } from "vitest";
import { type TaskRow, TaskState, TRANSITIONS } from "../../../src/store/index.js";
import { canMove } from "../../../src/store/states.js";
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

const task = imageTask("k1");

async function openWithTask(kind: StoreKind): Promise<{ store: TestStore; runId: number }> {
  const opened = await openStoreOf(kind);
  await opened.store.recordTasks(opened.runId, [task], 1);
  return opened;
}

const row = (store: TestStore, key = "k1") => taskNow(store, key);
const submitted = (store: TestStore, key = "k1", now = 2) => submitTask(store, key, now);
const completed = (store: TestStore, key = "k1", now = 3) => completeTask(store, key, now);
const file = downloadedFile;

describe.each(STORE_KINDS)("store (%s)", (kind) => {
  it("moves a job only from the state it is in (compare-and-set), and logs the move", async () => {
    const { store } = await openWithTask(kind);
    const pending = await row(store);
    const claim = await claimOne(store, pending, "me", 2);
    expect(claim?.task).toMatchObject({ state: "submitting", claimed_by: "me", attempts: 1 });
    expect(claim?.events).toEqual([{ type: "task:submitting", key: "k1", job: "a", label: "a" }]);
    // A second claim loses: the job is no longer pending.
    expect(await claimOne(store, pending, "other", 3)).toBeUndefined();
    expect(await store.task("k1")).toMatchObject({ claimed_by: "me", attempts: 1 });
    const events = await store.sql("SELECT type FROM events WHERE job_key = 'k1'");
    expect(events).toEqual([{ type: "job:submitting" }]);
    await store.close();
  });

  it("refuses a move the state graph does not allow", async () => {
    const { store } = await openWithTask(kind);
    const pending = await row(store);
    // A done task cannot fail; a pending one cannot expire.
    await expect(store.failTask(pending, ["done"], "failed", "x", 2)).rejects.toThrow(
      /done → failed is not allowed/,
    );
    await expect(store.failTask(pending, ["pending"], "expired", "x", 2)).rejects.toThrow(
      /pending → expired is not allowed/,
    );
    // Completed tasks download; they are not requeued.
    await expect(store.requeue(pending, ["completed"], null, 2)).rejects.toThrow(
      /completed → pending is not allowed/,
    );
    expect(await store.task("k1")).toMatchObject({ state: "pending", reason: null });
    expect(await store.sql("SELECT count(*) AS n FROM events")).toEqual([{ n: 0 }]);
    await store.close();
  });

  it("lets two processes claiming the same tasks at once each take different ones", async () => {
    const { store, runId, another } = await openStoreOf(kind);
    const other = await another();
    const keys = Array.from({ length: 40 }, (_, i) => `t${i}`);
    await store.recordTasks(runId, keys.map(imageTask), 1);
    const tasks = [...(await store.tasksByKey(keys)).values()];
    // In opposite orders, as two processes with their own views might ask.
    const [mine, theirs] = await Promise.all([
      store.claimForSubmit(tasks, "me", 2),
      other.claimForSubmit([...tasks].reverse(), "other", 2),
    ]);
    const taken = [...mine.claimed, ...theirs.claimed].map((task) => task.key);
    expect(taken.sort()).toEqual([...keys].sort());
    expect(mine.events).toHaveLength(mine.claimed.length);
    for (const task of (await store.tasksByKey(keys)).values())
      expect(task).toMatchObject({ state: "submitting", attempts: 1 });
    await other.close();
    await store.close();
  });

  it("keeps a known job's state when a later run records it again", async () => {
    const { store } = await openWithTask(kind);
    await claimOne(store, await row(store), "me", 2);
    const second = await store.createRun({
      name: "t",
      manifest_path: "/m.yaml",
      manifest_text: "",
      base_url: "sim",
      output_dir: "/out",
      started_at: 3,
    });
    const added = await store.recordTasks(second, [task], 3);
    expect(added.size).toBe(0);
    expect((await store.tasksOf(second)).map((row) => row.state)).toEqual(["submitting"]);
    await store.close();
  });

  it("keeps a run's dependant rules with it, none until recorded", async () => {
    const { store, runId } = await openStoreOf(kind);
    expect((await store.run(runId))?.dependant_rules).toBeNull();
    await store.setDependantRules(runId, '[{"job":"clip","from":"shots"}]');
    expect((await store.run(runId))?.dependant_rules).toBe('[{"job":"clip","from":"shots"}]');
    await store.close();
  });
});

describe("the task state table", () => {
  it("names every state, and moves only to states it names", () => {
    const states = Object.values(TaskState);
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...states].sort());
    expect(states).not.toContain("cancelled");
    for (const targets of Object.values(TRANSITIONS))
      for (const target of targets) expect(states).toContain(target);
  });

  it("lets a task into what a budget counts only by a claim or a failed task's new poll", () => {
    // A fleet's budget bound (sql/pg/000029) counts a claim's moves itself and hears of every
    // other rise by a trigger on the columns a repoll clears (`reason`): a new way in needs it.
    const counted = ["submitting", "submitted", "processing", "completed", "downloaded", "done"];
    const waysIn = Object.entries(TRANSITIONS).flatMap(([from, targets]) =>
      counted.includes(from)
        ? []
        : targets.filter((to) => counted.includes(to)).map((to) => `${from} → ${to}`),
    );
    expect(waysIn.sort()).toEqual([
      "failed → processing",
      "failed → submitted",
      "pending → submitting",
    ]);
  });

  it("allows the moves of the named transitions and no others", () => {
    expect(canMove("pending", "submitting")).toBe(true);
    expect(canMove("submitting", "downloaded")).toBe(true);
    expect(canMove("submitted", "completed")).toBe(true);
    expect(canMove("completed", "downloaded")).toBe(true);
    expect(canMove("downloaded", "done")).toBe(true);
    expect(canMove("done", "completed")).toBe(true);
    expect(canMove("done", "downloaded")).toBe(true);
    // A progress note is not a move; a downloaded task is checked, never downloaded again.
    expect(canMove("processing", "processing")).toBe(false);
    expect(canMove("downloaded", "completed")).toBe(false);
    expect(canMove("pending", "done")).toBe(false);
    expect(canMove("done", "failed")).toBe(false);
    expect(canMove("processing", "submitted")).toBe(false);
  });
});

describe.each(STORE_KINDS)("store transitions (%s)", (kind) => {
  it("records a receipt only for a task being submitted", async () => {
    const { store } = await openWithTask(kind);
    const pending = await row(store);
    const receipt = (task: TaskRow, taskId: string) => ({
      task,
      taskId,
      status: "submitted" as const,
      nextPollAt: 10,
      unknownSubmits: 1,
    });
    // Not claimed: nothing recorded.
    expect((await store.recordReceipts([receipt(pending, "t-1")], 2)).events).toEqual([]);
    expect(await store.task("k1")).toMatchObject({ state: "pending", task_id: null });
    const claim = await claimOne(store, pending, "me", 3);
    if (claim === undefined) throw new Error("not claimed");
    expect((await store.recordReceipts([receipt(claim.task, "t-2")], 4)).events).toEqual([
      {
        type: "task:submitted",
        key: "k1",
        job: "a",
        label: "a",
        taskId: "t-2",
        // Recorded at 4, first polled at 10.
        firstPollInMs: 6,
      },
    ]);
    expect(await store.task("k1")).toMatchObject({
      state: "submitted",
      task_id: "t-2",
      claimed_by: null,
      submitted_at: 4,
      next_poll_at: 10,
      unknown_submits: 1,
    });
    // A second answer for the same claim (a retried submit) changes nothing: it is polled now.
    expect((await store.recordReceipts([receipt(claim.task, "t-3")], 5)).events).toEqual([]);
    expect(await store.task("k1")).toMatchObject({ state: "submitted", task_id: "t-2" });
    await store.close();
  });

  it("names a polled task another process moved on as lost, and records nothing for it", async () => {
    const { store, runId } = await openWithTask(kind);
    await store.recordTasks(runId, [imageTask("k2")], 1);
    const stale = await submitted(store);
    const other = await submitted(store, "k2");
    // Another process gave up on k1 meanwhile.
    expect(await store.failTask(stale, ["submitted"], "expired", "task gone", 5)).toHaveLength(1);
    const links = [{ url: "https://x.invalid/0.png", expiresAt: null }];
    for (const outcome of [
      { kind: "running", status: "processing", progress: 40, nextPollAt: 20 },
      { kind: "running", status: "submitted", progress: 0, nextPollAt: 20 },
      { kind: "completed", links, cost: 0.1 },
      { kind: "failed", to: "failed", reason: "x" },
    ] as const) {
      const round = await store.recordPollRound(
        [
          { task: stale, outcome },
          {
            task: other,
            outcome: { kind: "running", status: "submitted", progress: 0, nextPollAt: 20 },
          },
        ],
        6,
      );
      expect([...round.lost]).toEqual(["k1"]);
      expect(round.events.filter((event) => event.key === "k1")).toEqual([]);
    }
    expect(await store.task("k1")).toMatchObject({
      state: "expired",
      reason: "task gone",
      polls: 0,
    });
    expect(await store.outputsOf("k1")).toEqual([]);
    expect(await store.task("k2")).toMatchObject({ state: "submitted", polls: 1 });
    await store.close();
  });

  it("moves a completed task to downloaded only with its last output", async () => {
    const { store } = await openWithTask(kind);
    const done = await completed(store);
    expect(done).toMatchObject({ state: "completed", cost: 0.25, progress: 100 });
    const first = await store.recordDownloads([file(done, 0)], 4);
    expect(first.complete.size).toBe(0);
    expect(first.events).toEqual([
      { type: "output:downloaded", key: "k1", job: "a", label: "a", path: "/out/0.png", bytes: 3 },
    ]);
    expect((await store.task("k1"))?.state).toBe("completed");
    // The same file again is not news.
    expect(await store.recordDownloads([file(done, 0)], 5)).toEqual({
      events: [],
      complete: new Set(),
    });
    const last = await store.recordDownloads([file(done, 1)], 6);
    expect([...last.complete]).toEqual(["k1"]);
    expect((await store.task("k1"))?.state).toBe("downloaded");
    expect((await store.outputsOf("k1")).map((output) => [output.state, output.path])).toEqual([
      ["downloaded", "/out/0.png"],
      ["downloaded", "/out/1.png"],
    ]);
    await store.close();
  });

  it("records a turn's files and checks for several tasks at once", async () => {
    const { store, runId } = await openWithTask(kind);
    await store.recordTasks(runId, [imageTask("k2")], 2);
    const one = await completed(store, "k1");
    const two = await completed(store, "k2");
    // Both of k1's files land in one turn with k2's first: k1 is downloaded, k2 waits.
    const landed = await store.recordDownloads([file(one, 0), file(two, 0), file(one, 1)], 4);
    expect([...landed.complete]).toEqual(["k1"]);
    expect(landed.events.map((event) => event.key)).toEqual(["k1", "k2", "k1"]);
    expect((await store.task("k2"))?.state).toBe("completed");
    await store.recordDownloads([file(two, 1)], 5);
    const check = (index: number, ok: boolean) => ({
      index,
      ok,
      problems: ok ? [] : ["too dark"],
      thumbnail: ok ? `/thumbs/${index}.jpg` : null,
      poster: null,
      details: { width: 8 },
    });
    const checked = await store.recordChecks(
      [
        { task: one, checks: [check(0, true), check(1, true)] },
        { task: two, checks: [check(0, true), check(1, false)] },
      ],
      6,
    );
    // Only the task whose every check passed is done; every verdict is kept.
    expect([...checked.done]).toEqual(["k1"]);
    expect(checked.events.map((event) => [event.type, event.key])).toEqual([
      ["output:checked", "k1"],
      ["output:checked", "k1"],
      ["task:done", "k1"],
      ["output:checked", "k2"],
      ["output:checked", "k2"],
    ]);
    expect(await store.task("k1")).toMatchObject({ state: "done", done_at: 6 });
    expect((await store.task("k2"))?.state).toBe("downloaded");
    const kept = await store.outputsOf("k2");
    expect(kept.map((output) => [output.check_state, output.thumbnail])).toEqual([
      ["ok", "/thumbs/0.jpg"],
      ["failed", null],
    ]);
    expect(JSON.parse(kept[1]?.checks ?? "{}")).toEqual({ problems: ["too dark"], width: 8 });
    // A second verdict on a done task keeps the verdict but moves nothing.
    const again = await store.recordChecks([{ task: one, checks: [check(0, true)] }], 7);
    expect(again.done.size).toBe(0);
    await store.close();
  });

  it("requeues a task as a new one: its task id, cost, progress and outputs forgotten", async () => {
    const { store } = await openWithTask(kind);
    const done = await completed(store);
    await store.recordDownloads([file(done, 0), file(done, 1)], 4);
    expect(await store.markDone(await row(store), 5)).toEqual([
      { type: "task:done", key: "k1", job: "a", label: "a" },
    ]);
    expect(await store.requeue(await row(store), ["done"], "redo", 6)).toBe(true);
    expect(await store.task("k1")).toMatchObject({
      state: "pending",
      task_id: null,
      claimed_by: null,
      cost: null,
      progress: null,
      next_poll_at: null,
      completed_at: null,
      done_at: null,
      reason: "redo",
    });
    expect(await store.outputsOf("k1")).toEqual([]);
    // Only from the states asked for.
    expect(await store.requeue(await row(store), ["done"], null, 7)).toBe(false);
    await store.close();
  });
});
