import { describe, expect, it } from "vitest";
import { partialDir } from "../../../src/core/output-files.js";
import { stillsJobs, withEngine } from "../../helpers/engine.js";
import { fill, mountTiny, unmount } from "../../helpers/tmpfs.js";

describe("a local fault never costs a paid task", () => {
  it("a full disk stops the run with a clear message and keeps completed tasks completed; the next run downloads them without submitting", async (context) => {
    await withEngine({}, `poll: { first_after: 2s, every: 2s }\n${stillsJobs(3)}`, async (rig) => {
      // Where the downloads are written first: a full disk there is a full disk for the run.
      const partials = partialDir(rig.outputDir);
      if (!mountTiny(partials)) {
        context.skip();
        return;
      }
      try {
        fill(partials);
        const stopped = await rig.finish(rig.engine().run());
        const reasons = (await rig.tasks()).map((task) => task.reason);
        expect(reasons, JSON.stringify(reasons)).toEqual([null, null, null]);
        expect(stopped.end).toBe("failed");
        expect(stopped.counts).toEqual({ completed: 3 });
        const stop = rig.events.find((event) => event.type === "run:stopping");
        expect(stop).toMatchObject({ reason: "failed" });
        expect(stop?.type === "run:stopping" && stop.message).toMatch(
          /^stopping: cannot write \S+: the disk is full \(ENOSPC\); free space/,
        );
        expect(rig.events.some((event) => event.type === "task:failed")).toBe(false);
      } finally {
        unmount(partials);
      }
      const paid = rig.sim.counters().submits.accepted;
      const resumed = await rig.finish(rig.engine().run());
      expect(resumed).toMatchObject({ end: "done", counts: { done: 3 } });
      expect(rig.sim.counters().submits.accepted).toBe(paid);
    });
  });
});
