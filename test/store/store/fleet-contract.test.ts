import { afterEach, describe, expect, it } from "vitest";
import { openPgStore, type PgStore } from "../../../src/store/index.js";
import { testDatabase } from "../../helpers/postgres.js";
import { claimOne, imageTask, submitTask, taskNow } from "../../helpers/store.js";

/**
 * The fleet's part of the PostgreSQL store, method by method: those the fleet tests reach
 * only through workers, the poll leader or `gwrun status`.
 */

const opened: PgStore[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const RUN = {
  name: "fleet",
  manifest_path: "/m.yaml",
  manifest_text: "version: 1",
  base_url: "http://gateway.test",
  output_dir: "/out",
  started_at: 1,
};

async function fleetStore(): Promise<{ store: PgStore; runId: number }> {
  const store = await openPgStore(await testDatabase({ schema: true }));
  opened.push(store);
  const runId = await store.createRun(RUN);
  await store.recordTasks(runId, ["k1", "k2", "k3"].map(imageTask), 1);
  return { store, runId };
}

describe("the fleet store, method by method", () => {
  it("keeps a run's resolved manifest, its halt and its clearing, and lists the runs going on", async () => {
    const { store, runId } = await fleetStore();
    const { fleet } = store;
    await fleet.setResolvedManifest(runId, "version: 1\njobs: []\n");
    expect(await fleet.haltRun(runId, "budget", "the budget is spent")).toBe(true);
    expect(await fleet.haltRun(runId, "balance", "the balance ran out")).toBe(false);
    expect(await fleet.fleetRun(runId)).toMatchObject({
      resolved_manifest: "version: 1\njobs: []\n",
      halt: "budget",
      stop_reason: "the budget is spent",
    });
    const finished = await store.createRun({ ...RUN, started_at: 2 });
    await store.finishRun(finished, "done", 0, 3);
    expect((await fleet.activeRuns()).map((run) => run.id)).toEqual([runId]);
    await fleet.clearHalt(runId);
    expect(await fleet.fleetRun(runId)).toMatchObject({
      halt: null,
      stop_reason: null,
      status: "running",
      queued: false,
    });
  });

  it("follows a run's task moves, the tasks the gateway holds, and the unknown submits", async () => {
    const { store, runId } = await fleetStore();
    const { fleet } = store;
    const before = await fleet.lastEventId();
    const sent = await submitTask(store, "k1", 2);
    const claim = await claimOne(store, await taskNow(store, "k2"), "me", 3);
    if (claim === undefined) throw new Error("not claimed");
    await store.releaseClaim(claim.task, { reason: "reset", unknownSubmits: 2 }, 4);
    expect(await fleet.lastEventId()).toBeGreaterThan(before);
    const moves = await fleet.movesSince(runId, before);
    expect(moves.map((move) => [move.type, move.key, move.reason])).toEqual([
      ["job:submitting", "k1", null],
      ["job:submitted", "k1", null],
      ["job:submitting", "k2", null],
      ["job:pending", "k2", "reset"],
    ]);
    expect(moves[1]).toMatchObject({ label: "a", task_id: sent.task_id, outputs: 0 });
    expect(await fleet.movesSince(runId, moves[1]!.id, 1)).toHaveLength(1);
    expect(await fleet.heldByGateway([runId])).toEqual([{ key: "k1", run_id: runId }]);
    expect(await fleet.heldByGateway([runId + 1])).toEqual([]);
    expect(await fleet.unknownSubmitsOf(runId)).toBe(2);
  });

  it("says who submitted a run's tasks, and counts task ids come back too late", async () => {
    const { store, runId } = await fleetStore();
    const { fleet } = store;
    await fleet.registerWorker({ id: "1@a", name: "a", host: "a", pid: 1, leaseMs: 5000 });
    const limits = { cap: 5, maxCost: undefined, unknownCost: undefined };
    for (const key of ["k1", "k2"]) {
      const claim = await fleet.claimWithin(await taskNow(store, key), "1@a", limits, 2);
      if (!("claimed" in claim)) throw new Error(`${key} not claimed`);
      const receipt = { task: claim.claimed, taskId: `t-${key}`, status: "submitted" as const };
      // k2's claim was taken over: its receipt comes back to a worker that no longer holds it.
      const owner = key === "k1" ? "1@a" : "2@b";
      await fleet.recordClaimedReceipt({ ...receipt, nextPollAt: 3, unknownSubmits: 0 }, owner, 3);
    }
    expect(await fleet.submitsByWorker(runId)).toEqual({ "1@a": 1 });
    expect(await fleet.orphanCount()).toBe(1);
  });

  it("lists workers with their pools, and one stopped as stopped", async () => {
    const { store } = await fleetStore();
    const { fleet } = store;
    await fleet.registerWorker({ id: "1@a", name: "a", host: "a", pid: 1, leaseMs: 5000 });
    await fleet.registerWorker({ id: "2@b", name: "b", host: "b", pid: 2, leaseMs: 5000 });
    await fleet.addWorkerPool("1@a", "pool-1");
    await fleet.addWorkerPool("1@a", "pool-2");
    await fleet.workerStopped("2@b");
    const workers = await fleet.workersOf();
    expect(workers.find((worker) => worker.id === "1@a")).toMatchObject({
      pool_ids: ["pool-1", "pool-2"],
      lease_ms: 5000,
      stopped_at: null,
      dead_at: null,
    });
    expect(workers.find((worker) => worker.id === "2@b")?.stopped_at).toEqual(expect.any(Number));
  });

  it("shows the queue, the pace rows and the store's identity", async () => {
    const { store } = await fleetStore();
    const { fleet } = store;
    // Each pending task recorded got its submit job.
    expect(await fleet.queueDepth(60_000)).toEqual({
      submits: 3,
      downloads: 0,
      running: 0,
      expiringLinks: 0,
    });
    await store.saveLearnedRate("http://gateway.test", 8);
    expect(await fleet.paceRows()).toEqual([
      { account: "http://gateway.test", rate: 8, ceiling: 8, announced: null, paused_ms: 0 },
    ]);
    const id = await fleet.storeId();
    expect(id).toMatch(/\S/);
    const again = await openPgStore(fleet.url);
    opened.push(again);
    expect(await again.fleet.storeId()).toBe(id);
  });
});
