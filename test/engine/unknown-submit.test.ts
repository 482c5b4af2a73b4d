import { describe, expect, it } from "vitest";
import { type TaskRow, TaskState } from "../../src/store/index.js";
import { stillsJobs, withEngine } from "../helpers/engine.js";

/** Submits whose outcome is unknown: the gateway may have made the task, and billed it. */

describe("unknown submits", () => {
  it("issue 16 item 6: a submit answered 500 after its task was made is counted as unknown", async () => {
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

  it("issue 16 item 6: with on_unknown_submit: hold, such a task waits held with the reason and is not sent twice", async () => {
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
});
