import { describe, expect, it } from "vitest";
import { type TaskRow, TaskState } from "../../../src/store/index.js";
import { stillsJobs, withEngine } from "../../helpers/engine.js";

/** Submits whose outcome is unknown: the gateway may have made the task, and billed it. */

describe("unknown submits", () => {
  it("a submit answered 500 after its task was made is counted as unknown", async () => {
    await withEngine(
      { latencySeconds: { image: 10 }, faults: { createdErrorRate: 1 } },
      `retry: { attempts: 2, min_delay: 1s, max_delay: 2s }
${stillsJobs(1)}`,
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        expect(result).toMatchObject({ end: "failed", counts: { failed: 1 }, unknownSubmits: 2 });
        const [task] = await rig.tasks();
        expect(task?.state).toBe("failed");
        expect(rig.sim.counters().tasks.created).toBe(2);
      },
    );
  });

  it("with on_unknown_submit: hold, such a task waits held with the reason and is not sent twice", async () => {
    await withEngine(
      { latencySeconds: { image: 10 }, faults: { createdErrorRate: 1 } },
      `retry: { attempts: 3, min_delay: 1s, max_delay: 2s, on_unknown_submit: hold }
${stillsJobs(1)}`,
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        expect(result).toMatchObject({ end: "failed", counts: { held: 1 }, unknownSubmits: 1 });
        const [task] = await rig.tasks();
        expect(task).toMatchObject({
          state: "held",
          reason: expect.stringMatching(/^held: the submit may have made the task .*retry --held/),
        });
        expect(rig.sim.counters().tasks.created).toBe(1);

        // What `gwrun retry --held` does: back to pending, and the next run sends it.
        const now = rig.clock.now();
        expect(await rig.store.requeue(task as TaskRow, [TaskState.Held], null, now)).toBe(true);
        await rig.finish(rig.engine().run());
        expect(rig.sim.counters().tasks.created).toBe(2);
      },
    );
  });

  // One task in flight at a time, each reserving 1: only what the unknown submits count keeps
  // the run within max_cost, since each task's reservation is given back when it ends.
  const limits = (maxCost: number) =>
    `limits: { max_in_flight: 1, max_cost: ${maxCost}, unknown_cost: 1 }`;

  it("a held task counts its reservation against max_cost, in this run and when it is resumed", async () => {
    await withEngine(
      { latencySeconds: { image: 10 }, faults: { createdErrorRate: 1 } },
      `${limits(2)}
retry: { attempts: 3, min_delay: 1s, max_delay: 2s, on_unknown_submit: hold }
${stillsJobs(4)}`,
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        // Each held submit may have been billed: two of them spend the budget of 2.
        expect(result).toMatchObject({ end: "budget", counts: { held: 2, pending: 2 } });
        expect(rig.sim.counters().tasks.created).toBe(2);
        const held = (await rig.tasks()).filter((task) => task.state === "held");
        expect(held.map((task) => task.unknown_submits)).toEqual([1, 1]);
        expect(rig.events).toContainEqual(
          expect.objectContaining({
            type: "run:stopping",
            reason: "budget",
            message: expect.stringContaining(
              "(spent 0 plus tasks running, and 2 for submits of unknown outcome)",
            ),
          }),
        );

        // Resumed: the held tasks still count, so nothing more is sent.
        expect(await rig.finish(rig.engine().run())).toMatchObject({ end: "budget" });
        expect(rig.sim.counters().tasks.created).toBe(2);
      },
    );
  });

  it("a submit sent again after an unknown outcome counts each unknown try against max_cost", async () => {
    await withEngine(
      { latencySeconds: { image: 10 }, faults: { createdErrorRate: 1 } },
      `${limits(3)}
retry: { attempts: 2, min_delay: 1s, max_delay: 2s }
${stillsJobs(4)}`,
      async (rig) => {
        const result = await rig.finish(rig.engine().run());

        // Two tries each, both unknown: the first task counts 2, the second 2 more (within 3
        // when it was taken), and the third would pass 3.
        expect(result).toMatchObject({ end: "budget", counts: { failed: 2, pending: 2 } });
        expect(rig.sim.counters().tasks.created).toBe(4);
        const failed = (await rig.tasks()).filter((task) => task.state === "failed");
        expect(failed.map((task) => task.unknown_submits)).toEqual([2, 2]);
      },
    );
  });
});
