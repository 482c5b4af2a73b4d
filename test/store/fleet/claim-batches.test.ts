import { afterEach, describe, expect, it } from "vitest";
import type { PgStore, Receipt, TaskRow } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";

/**
 * A fleet's claims, receipts and downloads several tasks at a time, on a
 * real PostgreSQL, each task keeping its own guard.
 */

afterEach(closeFleetStores);

const ROOMY = { cap: 100, maxCost: undefined, unknownCost: undefined };

const outcomes = (claims: Awaited<ReturnType<PgStore["fleet"]["claimTasksWithin"]>>) =>
  claims.map((claim) => ("claimed" in claim ? "claimed" : claim.refused));

/** The claimed row of `task` for `owner`, claimed on its own. */
async function claimed(store: PgStore, task: TaskRow, owner: string): Promise<TaskRow> {
  const claim = await store.fleet.claimWithin(task, owner, ROOMY, 2);
  if (!("claimed" in claim)) throw new Error(`${task.key} was not claimed`);
  return claim.claimed;
}

const receipt = (task: TaskRow, taskId: string): Receipt => ({
  task,
  taskId,
  status: "submitted",
  nextPollAt: 10,
  unknownSubmits: 0,
});

describe("claims and receipts of several tasks at once", () => {
  it("a batch claim that meets a task already claimed claims the rest, and never that one twice", async () => {
    const { stores, runId, rows } = await fleet(2, 5);
    const [a, b] = stores as [PgStore, PgStore];
    const taken = rows[2] as TaskRow;
    await claimed(b, taken, "other@h");
    const claims = await a.fleet.claimTasksWithin(rows, "w@h", ROOMY, 3);
    expect(outcomes(claims)).toEqual(["claimed", "claimed", "gone", "claimed", "claimed"]);
    const after = await a.tasksOf(runId);
    expect(after.filter((task) => task.claimed_by === "w@h")).toHaveLength(4);
    expect(after.find((task) => task.key === taken.key)).toMatchObject({
      state: "submitting",
      claimed_by: "other@h",
      attempts: 1,
    });
    // Claimed once each: a second batch finds them all gone.
    expect(outcomes(await b.fleet.claimTasksWithin(rows, "other@h", ROOMY, 4))).toEqual(
      Array(5).fill("gone"),
    );
  });

  it("claims a task named twice in one batch once", async () => {
    const { stores, runId, rows } = await fleet(1, 2);
    const [store] = stores as [PgStore];
    const [first, second] = rows as [TaskRow, TaskRow];
    const claims = await store.fleet.claimTasksWithin([first, first, second], "w@h", ROOMY, 3);
    expect(outcomes(claims)).toEqual(["claimed", "gone", "claimed"]);
    const after = await store.tasksOf(runId);
    expect(after.map((task) => [task.state, task.attempts])).toEqual([
      ["submitting", 1],
      ["submitting", 1],
    ]);
  });

  it("a batch claim stops at the lane's cap and the budget, in the job's order", async () => {
    const { stores, rows } = await fleet(1, 6, 0.25);
    const [store] = stores as [PgStore];
    const capped = await store.fleet.claimTasksWithin(
      rows.slice(0, 3),
      "w@h",
      { ...ROOMY, cap: 2 },
      2,
    );
    expect(outcomes(capped)).toEqual(["claimed", "claimed", "full"]);
    // 0.5 in flight already; two more make 1.0, a third would pass 1.
    const budget = { ...ROOMY, maxCost: 1 };
    const spent = await store.fleet.claimTasksWithin(rows.slice(2), "w@h", budget, 3);
    expect(outcomes(spent)).toEqual(["claimed", "claimed", "budget", "budget"]);
  });

  it("receipts recorded together keep each claim's guard: an orphan and a duplicate id stay apart", async () => {
    const { stores, rows } = await fleet(1, 4);
    const [store] = stores as [PgStore];
    const [first, second, third, fourth] = await Promise.all(
      (rows as [TaskRow, TaskRow, TaskRow, TaskRow]).map((task) => claimed(store, task, "w@h")),
    );
    // `third` was taken over meanwhile: its claim is another worker's now.
    await store.pool.query("UPDATE jobs SET claimed_by = 'heir@h' WHERE key = $1", [third?.key]);
    const { recorded, events } = await store.fleet.recordClaimedReceipts(
      [
        receipt(first as TaskRow, "t-1"),
        receipt(second as TaskRow, "t-1"),
        receipt(third as TaskRow, "t-3"),
        receipt(fourth as TaskRow, "t-4"),
      ],
      "w@h",
      5,
    );
    expect(recorded).toEqual(["recorded", { duplicateOf: first?.label }, "orphan", "recorded"]);
    expect(events.map((event) => event.key)).toEqual([first?.key, fourth?.key]);
    expect(await store.task(first?.key as string)).toMatchObject({
      state: "submitted",
      task_id: "t-1",
    });
    expect(await store.task(second?.key as string)).toMatchObject({
      state: "submitting",
      task_id: null,
    });
    expect(await store.task(third?.key as string)).toMatchObject({
      state: "submitting",
      claimed_by: "heir@h",
    });
    expect((await store.fleet.orphansOf(10)).map((orphan) => orphan.task_id)).toEqual(["t-3"]);
    // Recorded once: the same receipt again moves nothing and keeps the task id.
    const again = await store.fleet.recordClaimedReceipts(
      [receipt(first as TaskRow, "t-9")],
      "w@h",
      6,
    );
    expect(again.recorded).toEqual(["orphan"]);
    expect(await store.task(first?.key as string)).toMatchObject({ task_id: "t-1" });
  });

  it("claims a job never sent go back to pending only while they are still its own", async () => {
    const { stores, rows } = await fleet(1, 3);
    const [store] = stores as [PgStore];
    const [mine, lent] = await Promise.all(
      rows.slice(0, 2).map((task) => claimed(store, task, "w@h")),
    );
    await store.pool.query("UPDATE jobs SET claimed_by = 'heir@h' WHERE key = $1", [lent?.key]);
    const keys = [mine?.key, lent?.key, rows[2]?.key] as string[];
    expect(await store.fleet.releaseUnsentClaims(keys, "w@h", 7)).toBe(1);
    expect(await store.task(mine?.key as string)).toMatchObject({
      state: "pending",
      claimed_by: null,
    });
    expect(await store.task(lent?.key as string)).toMatchObject({
      state: "submitting",
      claimed_by: "heir@h",
    });
    expect((await store.task(rows[2]?.key as string))?.state).toBe("pending");
  });

  it("a poll round's completions go in download jobs of up to ten tasks, each task in one", async () => {
    const { stores, rows } = await fleet(1, 40);
    const [store] = stores as [PgStore];
    const owned = await store.fleet.claimTasksWithin(rows, "w@h", ROOMY, 2);
    const tasks = owned.map((claim) => ("claimed" in claim ? claim.claimed : undefined));
    const now = Date.now();
    await store.fleet.recordClaimedReceipts(
      tasks.map((task, i) => receipt(task as TaskRow, `t-${i}`)),
      "w@h",
      now,
    );
    const link = { url: "http://gateway.test/x.png", expiresAt: now + 3_600_000 };
    const completed = { kind: "completed" as const, links: [link], cost: 0.1 };
    await store.recordPollRound(
      tasks.map((task) => ({
        task: { ...(task as TaskRow), state: "submitted" },
        outcome: completed,
      })),
      now,
    );
    const { rows: jobs } = await store.pool.query<{
      key: string | null;
      payload: { key?: string; keys?: string[] };
    }>(
      `SELECT q.key, q.payload FROM graphile_worker_downloads._private_jobs q
       JOIN graphile_worker_downloads._private_tasks t ON t.id = q.task_id
       WHERE t.identifier = 'gwrun_download'`,
    );
    // Forty completions: five to a job, eight jobs, so two workers still share them.
    expect(jobs).toHaveLength(8);
    const listed = jobs.flatMap((job) => job.payload.keys ?? [job.payload.key]);
    expect(listed.sort()).toEqual(rows.map((task) => task.key).sort());
    expect(jobs.every((job) => job.key === null && job.payload.keys?.length === 5)).toBe(true);
    // Read back in one statement, as a download job reads its tasks.
    const read = await store.fleet.tasksWithOutputs(jobs[0]?.payload.keys ?? []);
    expect([...read.values()].map((one) => [one.task.state, one.outputs.length])).toEqual(
      Array(5).fill(["completed", 1]),
    );
  });
});
