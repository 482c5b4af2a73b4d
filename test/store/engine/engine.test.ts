import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { processAlive } from "../../../src/core/process.js";
import type { TaskRow } from "../../../src/store/index.js";
import { mortal } from "../../helpers/clock.js";
import { requestHash, stateCounts, stillsJobs, withEngine } from "../../helpers/engine.js";

/**
 * The engine in virtual time against the in-process simulator: submits, the claims of dead
 * processes, the balance, the budget and a crash. Tasks take 10 s of gateway time.
 */

const TEN_SECONDS = { latencySeconds: { image: 10 } };
const POLL = "poll: { first_after: 5s, every: 2s }";

/** `count` family A images, every request distinct, no price known in advance. */
function images(count: number, limits = "{}"): string {
  return `limits: ${limits}
${POLL}
${stillsJobs(count)}`;
}

/** `count` family B images at 0.20 each, a price the engine knows before it submits. */
function pricedImages(count: number, limits: string): string {
  return `limits: ${limits}
${POLL}
jobs:
  - id: sets
    model: acme2.7-image
    matrix: { take: [${Array.from({ length: count }, (_, i) => i + 1).join(", ")}] }
    prompt: "A mug, take {{take}}"
    size: "1024x1024"
`;
}

const running = (tasks: readonly TaskRow[]) =>
  tasks.filter((task) => task.state === "submitted" || task.state === "processing");

describe("the engine, in virtual time", () => {
  it("puts a dead process's submitting task back to pending, sends it once and counts an unknown submit", async () => {
    await withEngine(TEN_SECONDS, images(2), async (rig) => {
      const [orphan] = await rig.tasks();
      if (orphan === undefined) throw new Error("no task recorded");
      // A process of this machine that is gone claimed it, and died before it heard back.
      expect(processAlive(999999)).toBe(false);
      rig.store.db
        .prepare("UPDATE jobs SET state = 'submitting', claimed_by = ?, attempts = 1 WHERE key = ?")
        .run(`999999@${hostname()}`, orphan.key);

      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "done", counts: { done: 2 }, unknownSubmits: 1 });
      expect(await rig.store.task(orphan.key)).toMatchObject({ state: "done", unknown_submits: 1 });
      const { submits } = rig.sim.counters();
      expect(submits.byRequest[requestHash(orphan)]).toBe(1);
      expect(submits.accepted).toBe(2);
    });
  });

  it("stops submitting on a 402 but still polls and downloads the tasks already running", async () => {
    // Room for two tasks at 0.20; the third submit is refused.
    await withEngine(
      { ...TEN_SECONDS, balance: 0.4 },
      pricedImages(6, "{ submit_rate: 5/s, max_in_flight: 3 }"),
      async (rig) => {
        const run = rig.engine().run();
        await rig.until(() => rig.events.some((event) => event.type === "run:stopping"));
        expect(rig.events.find((event) => event.type === "run:stopping")).toMatchObject({
          reason: "balance",
          message: expect.stringMatching(/balance ran out/),
        });
        const atHalt = await rig.tasks();
        const heldByGateway = running(atHalt).map((task) => task.key);
        expect(heldByGateway).toHaveLength(2);
        expect(stateCounts(atHalt)).toMatchObject({ pending: 4 });

        const result = await rig.finish(run);

        expect(result).toMatchObject({ end: "balance", counts: { done: 2, pending: 4 } });
        for (const key of heldByGateway)
          expect(await rig.store.task(key)).toMatchObject({ state: "done" });
        const counters = rig.sim.counters();
        // Only the refused submit went out after the two: the later tasks were never sent.
        expect(counters.submits).toMatchObject({ received: 3, accepted: 2 });
        expect(counters.errors).toEqual({ 402: 1 });
        expect(counters.downloads.served).toBe(2);
        expect(counters.charged).toBe(0.4);
      },
    );
  });

  it("sends nothing after a 402, not even submits already waiting for their turn at the pace", async () => {
    // Room for two tasks at 0.20; max_in_flight lets all six wait at the pace at once.
    await withEngine(
      { ...TEN_SECONDS, balance: 0.4 },
      pricedImages(6, "{ submit_rate: 5/s, max_in_flight: 20 }"),
      async (rig) => {
        const result = await rig.finish(rig.engine().run());
        expect(result).toMatchObject({ end: "balance", counts: { done: 2, pending: 4 } });
        const halt = rig.events.findIndex((event) => event.type === "run:stopping");
        const after = rig.events.slice(halt);
        expect(after.filter((event) => event.type === "task:submitting")).toEqual([]);
        expect(rig.sim.counters().submits).toMatchObject({ received: 3, accepted: 2 });
        expect(rig.sim.counters().errors).toEqual({ 402: 1 });
      },
    );
  });

  it("counts running tasks at their estimate against max_cost, before any has completed", async () => {
    // 0.50 covers two tasks at 0.20; nothing completes in the first 10 s.
    await withEngine(
      TEN_SECONDS,
      pricedImages(6, "{ submit_rate: 5/s, max_in_flight: 20, max_cost: 0.5 }"),
      async (rig) => {
        const run = rig.engine().run();
        await rig.advanceTo(rig.clock.now() + 5_000);
        const early = await rig.tasks();
        expect(early.some((task) => task.cost !== null || task.completed_at !== null)).toBe(false);
        expect(running(early)).toHaveLength(2);
        expect(stateCounts(early)).toMatchObject({ pending: 4 });
        expect(rig.sim.counters().submits.accepted).toBe(2);
        expect(rig.events).toContainEqual(
          expect.objectContaining({ type: "run:stopping", reason: "budget" }),
        );

        const result = await rig.finish(run);

        expect(result).toMatchObject({ end: "budget", counts: { done: 2, pending: 4 } });
        expect(rig.sim.counters().submits).toMatchObject({ received: 2, accepted: 2 });
      },
    );
  });

  it("never submits a recorded task again after a crash: a new engine on the store polls it", async () => {
    await withEngine(TEN_SECONDS, images(6, "{ max_in_flight: 3 }"), async (rig) => {
      // The first engine runs until three tasks have their task ids, then dies where it waits.
      const doomed = mortal(rig.clock);
      void rig.engine({ clock: doomed }).run();
      await rig.until(async () => running(await rig.tasks()).length === 3);
      const beforeCrash = await rig.tasks();
      expect(stateCounts(beforeCrash)).toEqual({ pending: 3, submitted: 3 });
      doomed.die();
      const recorded = new Map(
        beforeCrash.filter((task) => task.task_id !== null).map((t) => [t.key, t.task_id]),
      );

      const result = await rig.finish(rig.engine().run());

      expect(result).toMatchObject({ end: "done", counts: { done: 6 }, unknownSubmits: 0 });
      for (const [key, taskId] of recorded)
        expect(await rig.store.task(key)).toMatchObject({ state: "done", task_id: taskId });
      const { submits } = rig.sim.counters();
      expect(submits.accepted).toBe(6);
      for (const task of await rig.tasks()) expect(submits.byRequest[requestHash(task)]).toBe(1);
    });
  });
});
