import { afterEach, describe, expect, it } from "vitest";
import type { PgStore, TaskRow } from "../../../src/store/index.js";
import { closeFleetStores, fleet } from "../../helpers/fleet-store.js";
import { moveDatabaseClock } from "../../helpers/postgres.js";
import { until } from "../../helpers/until.js";

/** Claims, receipts, dead workers and the work queue of a fleet, on a real PostgreSQL. */

afterEach(closeFleetStores);

const NO_BUDGET = { cap: 5, maxCost: undefined, unknownCost: undefined };

describe("claims across a fleet", () => {
  it("holds a lane's in-flight cap when four processes claim forty tasks at once", async () => {
    const { stores, runId, rows } = await fleet(4, 40);
    const claims = await Promise.all(
      rows.map((task, i) =>
        (stores[i % 4] as PgStore).fleet.claimWithin(task, `w${i % 4}`, NO_BUDGET, 2),
      ),
    );
    const claimed = claims.filter((claim) => "claimed" in claim);
    expect(claimed).toHaveLength(5);
    expect(claims.filter((claim) => "refused" in claim && claim.refused === "full")).toHaveLength(
      35,
    );
    const states = (await (stores[0] as PgStore).tasksOf(runId)).map((task) => task.state);
    expect(states.filter((state) => state === "submitting")).toHaveLength(5);
  });

  it("gives a lane's room back as its tasks leave flight, whichever way they leave", async () => {
    const { stores, rows } = await fleet(2, 6);
    const [a, b] = stores as [PgStore, PgStore];
    const limits = { ...NO_BUDGET, cap: 2 };
    const claim = async (task: TaskRow) => {
      const claimed = await a.fleet.claimWithin(task, "w", limits, 2);
      return "claimed" in claimed ? claimed.claimed : claimed.refused;
    };
    const [t0, t1, t2, t3, t4, t5] = rows as [TaskRow, TaskRow, TaskRow, TaskRow, TaskRow, TaskRow];
    const first = await claim(t0);
    const second = await claim(t1);
    expect(await claim(t2)).toBe("full");
    if (typeof first === "string" || typeof second === "string") throw new Error("claimed");

    // A submit not made goes back to pending.
    expect(await b.releaseClaim(first, { unknownSubmits: 0 }, 3)).toBe(true);
    const third = await claim(t2);
    expect(await claim(t3)).toBe("full");
    // A task the gateway finished, in another process's poll round.
    const given = { taskId: "t-1", status: "submitted" as const, nextPollAt: 4, unknownSubmits: 0 };
    await a.fleet.recordClaimedReceipt({ task: second, ...given }, "w", 4);
    const link = { url: "http://gateway.test/x.png", expiresAt: 60_000 };
    const outcome = { kind: "completed" as const, links: [link], cost: 0.1 };
    await b.recordPollRound([{ task: { ...second, state: "submitted" }, outcome }], 5);
    const fourth = await claim(t3);
    expect(await claim(t4)).toBe("full");
    if (typeof third === "string" || typeof fourth === "string") throw new Error("claimed");
    // A submit the gateway refused.
    await b.failTask(third, ["submitting"], "rejected", "refused", 6);
    expect(typeof (await claim(t4))).toBe("object");
    expect(await claim(t5)).toBe("full");
  });

  it("keeps what is spent plus what is in flight within max_cost, fleet-wide", async () => {
    const { stores, rows } = await fleet(2, 6, 0.3);
    const [a, b] = stores as [PgStore, PgStore];
    const limits = { cap: 100, maxCost: 1, unknownCost: undefined };
    const claims = await Promise.all(
      rows.map((task, i) => (i % 2 === 0 ? a : b).fleet.claimWithin(task, "w", limits, 2)),
    );
    // 0.3 × 3 = 0.9 fits; a fourth would make 1.2.
    expect(claims.filter((claim) => "claimed" in claim)).toHaveLength(3);
    expect(claims.filter((claim) => "refused" in claim && claim.refused === "budget")).toHaveLength(
      3,
    );
  });

  it("records a receipt only while the claim is its claimer's, and keeps a late one as an orphan", async () => {
    const { stores, rows } = await fleet(1, 1);
    const [store] = stores as [PgStore];
    const task = rows[0] as TaskRow;
    const claim = await store.fleet.claimWithin(task, "w1@a", NO_BUDGET, 2);
    if (!("claimed" in claim)) throw new Error("claimed");
    const receipt = (taskId: string) => ({
      task: claim.claimed,
      taskId,
      status: "submitted" as const,
      nextPollAt: 10,
      unknownSubmits: 0,
    });
    // Another worker's receipt for this claim is not this task's.
    const late = await store.fleet.recordClaimedReceipt(receipt("t-late"), "w2@b", 3);
    expect(late.recorded).toBe("orphan");
    expect((await store.task(task.key))?.state).toBe("submitting");
    const mine = await store.fleet.recordClaimedReceipt(receipt("t-1"), "w1@a", 4);
    expect(mine.recorded).toBe("recorded");
    expect(await store.task(task.key)).toMatchObject({ state: "submitted", task_id: "t-1" });
    expect((await store.fleet.orphansOf(10)).map((orphan) => orphan.task_id)).toEqual(["t-late"]);
  });

  it("refuses a receipt whose task id another task holds, and moves nothing", async () => {
    const { stores, rows } = await fleet(1, 2);
    const [store] = stores as [PgStore];
    const [first, second] = rows as [TaskRow, TaskRow];
    const receipt = async (task: TaskRow) => {
      const claim = await store.fleet.claimWithin(task, "w1@a", NO_BUDGET, 2);
      if (!("claimed" in claim)) throw new Error("claimed");
      const status = "submitted" as const;
      const given = { task: claim.claimed, taskId: "t-same", status, nextPollAt: 10 };
      return store.fleet.recordClaimedReceipt({ ...given, unknownSubmits: 0 }, "w1@a", 3);
    };
    expect((await receipt(first)).recorded).toBe("recorded");
    expect((await receipt(second)).recorded).toEqual({ duplicateOf: first.label });
    expect(await store.task(second.key)).toMatchObject({ state: "submitting", task_id: null });
    expect(await store.fleet.orphansOf(10)).toEqual([]);
  });

  it("hands a dead worker's claims back by the run's policy, and frees none of a live one", async () => {
    const { stores, rows } = await fleet(1, 3);
    const [store] = stores as [PgStore];
    for (const id of ["dead@h", "live@h"])
      await store.fleet.registerWorker({ id, name: id, host: "h", pid: 1, leaseMs: 90_000 });
    const [a, b, c] = rows as [TaskRow, TaskRow, TaskRow];
    for (const [task, owner] of [
      [a, "dead@h"],
      [b, "dead@h"],
      [c, "live@h"],
    ] as const)
      await store.fleet.claimWithin(task, owner, NO_BUDGET, 2);
    // A minute on by the database's clock, only one of them has beaten.
    await moveDatabaseClock(store.pool, 60_000);
    expect(await store.fleet.heartbeat("live@h")).toBe(true);
    const { dead, claims } = await store.fleet.reapWorkers(30_000);
    expect(dead).toEqual(["dead@h"]);
    expect(claims.map((task) => task.key).sort()).toEqual([a.key, b.key]);
    const [first, second] = claims as [TaskRow, TaskRow];
    expect(await store.fleet.resolveDeadClaim(first, "resubmit", "gone", 5)).toBe(true);
    expect(await store.fleet.resolveDeadClaim(second, "hold", "gone", 5)).toBe(true);
    expect(await store.task(first.key)).toMatchObject({ state: "pending", unknown_submits: 1 });
    expect((await store.task(second.key))?.state).toBe("held");
    expect((await store.task(c.key))?.state).toBe("submitting");
    // A second reaper finds nothing left to do.
    expect((await store.fleet.reapWorkers(30_000)).claims).toEqual([]);
    expect(await store.fleet.heartbeat("dead@h")).toBe(false);
  });

  it("leaves a run being recorded unsettled until its work is queued", async () => {
    const { stores, runId } = await fleet(1, 0);
    const [store] = stores as [PgStore];
    const end = { status: "done", exitCode: 0, now: 5 };
    // No tasks yet, as while `run` records them: nothing is left, yet the run is not over.
    expect(await store.fleet.hasWorkLeft(runId, false)).toBe(false);
    expect(await store.fleet.settleRun(runId, end)).toBe(false);
    expect((await store.fleet.fleetRun(runId))?.status).toBe("running");
    await store.fleet.queueRun(runId);
    expect(await store.fleet.settleRun(runId, end)).toBe(true);
    expect((await store.fleet.fleetRun(runId))?.status).toBe("done");
  });

  it("passes a dead worker's poll lead to a standby, even when its host never closed the connection", async () => {
    const { stores } = await fleet(2, 0);
    const [store] = stores as [PgStore];
    await store.fleet.registerWorker({
      id: "gone@h",
      name: "gone",
      host: "h",
      pid: 1,
      leaseMs: 90_000,
    });
    const leader = store.fleet.leaderLock("http://gateway.test", "gone@h");
    const standby = store.fleet.leaderLock("http://gateway.test", "next@h");
    try {
      expect(await leader.tryLead()).toBe(true);
      expect(await standby.tryLead()).toBe(false);
      expect(await store.fleet.pollLeaders()).toEqual(["gone@h"]);
      await store.fleet.reapWorkers(30_000, ["gone@h"]);
      await until("the standby to lead", () => standby.tryLead(), { everyMs: 100 });
      expect(await store.fleet.pollLeaders()).toEqual(["next@h"]);
    } finally {
      await leader.release();
      await standby.release();
    }
  });

  it("names only its own database's poll leader, not another store's on the same server", async () => {
    const [{ stores }, other] = await Promise.all([fleet(1, 0), fleet(1, 0)]);
    const [store] = stores as [PgStore];
    const [elsewhere] = other.stores as [PgStore];
    const leader = elsewhere.fleet.leaderLock("http://gateway.test", "other@h");
    try {
      expect(await leader.tryLead()).toBe(true);
      expect(await elsewhere.fleet.pollLeaders()).toEqual(["other@h"]);
      expect(await store.fleet.pollLeaders()).toEqual([]);
    } finally {
      await leader.release();
    }
  });

  it("queues a submit job with every pending task and a download job with each completion, soonest expiry first", async () => {
    const { stores, rows } = await fleet(1, 2);
    const [store] = stores as [PgStore];
    const jobs = async () =>
      (
        await store.pool.query<{ task_identifier: string; key: string; priority: number }>(
          `SELECT task_identifier, key, priority FROM graphile_worker.jobs
           UNION ALL SELECT task_identifier, key, priority FROM graphile_worker_downloads.jobs
           ORDER BY key`,
        )
      ).rows;
    const [a, b] = rows as [TaskRow, TaskRow];
    expect((await jobs()).map((job) => job.key)).toEqual([`submit:${a.key}`, `submit:${b.key}`]);
    const now = Date.now();
    for (const [task, expiresInMin] of [
      [a, 30],
      [b, 5],
    ] as const) {
      const claim = await store.fleet.claimWithin(task, "w", NO_BUDGET, now);
      if (!("claimed" in claim)) throw new Error("claimed");
      await store.fleet.recordClaimedReceipt(
        {
          task: claim.claimed,
          taskId: `id-${task.key}`,
          status: "submitted",
          nextPollAt: now,
          unknownSubmits: 0,
        },
        "w",
        now,
      );
      const link = { url: "http://gateway.test/x.png", expiresAt: now + expiresInMin * 60_000 };
      await store.recordPollRound(
        [
          {
            task: { ...claim.claimed, state: "submitted" },
            outcome: { kind: "completed", links: [link], cost: 0.1 },
          },
        ],
        now,
      );
    }
    // A download job reads a task and its outputs at once, as the store port reads them apart,
    // and whether another task goes by its label (none does here).
    const read = await store.fleet.tasksWithOutputs([b.key, "no-such-task"]);
    expect([...read.keys()]).toEqual([b.key]);
    expect(read.get(b.key)).toEqual({
      task: await store.task(b.key),
      outputs: await store.outputsOf(b.key),
      labelShared: false,
    });
    const downloads = (await jobs()).filter((job) => job.task_identifier === "gwrun_download");
    // Priority is minutes left on the earliest link, so the 5-minute link is taken first.
    expect(downloads.map((job) => [job.key, Math.round(job.priority / 5) * 5])).toEqual([
      [`download:${a.key}`, 30],
      [`download:${b.key}`, 5],
    ]);
  });

  it("queues a large run's pending tasks ten to a submit job, in order, and never queues one twice", async () => {
    const { stores, runId, rows } = await fleet(1, 700);
    const [store] = stores as [PgStore];
    const submitJobs = async () =>
      (
        await store.pool.query<{ key: string | null; payload: { keys?: string[] } }>(
          "SELECT key, payload FROM graphile_worker._private_jobs ORDER BY id",
        )
      ).rows;
    const queued = await submitJobs();
    expect(queued).toHaveLength(70);
    expect(queued.every((job) => job.key === null)).toBe(true);
    expect(queued.flatMap((job) => job.payload.keys ?? [])).toEqual(rows.map((task) => task.key));
    // Queuing the run again (as `gwrun resume` does) finds every task in a job already.
    await store.fleet.queueRun(runId);
    expect(await submitJobs()).toHaveLength(70);
  });

  it("queues a download job for a task answered outside a poll round, and one per task in a round", async () => {
    const { stores, rows } = await fleet(1, 3);
    const [store] = stores as [PgStore];
    const downloads = async () =>
      (
        await store.pool.query<{ key: string }>(
          "SELECT key FROM graphile_worker_downloads.jobs WHERE task_identifier = 'gwrun_download' ORDER BY key",
        )
      ).rows.map((job) => job.key);
    const now = Date.now();
    const submitted: TaskRow[] = [];
    for (const task of rows) {
      const claim = await store.fleet.claimWithin(task, "w", NO_BUDGET, now);
      if (!("claimed" in claim)) throw new Error("claimed");
      submitted.push(claim.claimed);
    }
    const [answered, ...polled] = submitted as [TaskRow, TaskRow, TaskRow];
    const answer = { format: "chat", model: "m", text: "hi", choices: 1, finish_reason: "stop" };
    const extra = { usage: null, tool_calls: "[]", refusal: null, streamed: 0 };
    const file = { path: "/out/a.txt", bytes: 2, sha256: "ab", contentType: "text/plain" };
    await store.recordTextAnswer(answered, { ...answer, ...extra }, [file], now);
    expect(await downloads()).toEqual([`download:${answered.key}`]);
    for (const task of polled)
      await store.fleet.recordClaimedReceipt(
        { task, taskId: `id-${task.key}`, status: "submitted", nextPollAt: now, unknownSubmits: 0 },
        "w",
        now,
      );
    const link = { url: "http://gateway.test/x.png", expiresAt: now + 60_000 };
    await store.recordPollRound(
      polled.map((task) => ({
        task: { ...task, state: "submitted" as const },
        outcome: { kind: "completed" as const, links: [link], cost: 0.1 },
      })),
      now,
    );
    expect(await downloads()).toEqual(submitted.map((task) => `download:${task.key}`).sort());
  });
});
