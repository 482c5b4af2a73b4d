import { describe, expect, it } from "vitest";
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
});
