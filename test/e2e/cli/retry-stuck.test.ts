import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";

describe("retry --stuck", () => {
  it("polls again the tasks given up on, without submitting them again", async () => {
    // Tasks take 1.5 s; the run gives up on them after 1 s, the retry polls them to the end.
    await withRun({ seed: "stuck", latencySeconds: { image: 5_400 } }, async (scope) => {
      const manifest = scope.write(
        "stuck.yaml",
        `${fastSettings(scope.outputDir).replace("batch_size: 50", "batch_size: 50, give_up_after: 1s")}name: stuck
jobs:
  - id: shots
    model: acme-image-2
    matrix: { subject: [a ceramic mug, a teapot] }
    prompt: "{{subject}} on an oak table"
`,
      );
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.code).not.toBe(0);
      const stuck = await scope.tasks();
      for (const task of stuck) {
        expect(task.state).toBe("failed");
        expect(task.reason).toMatch(
          /^no result after 1s \(the gateway still says "(submitted|processing)"\)$/,
        );
      }

      const retried = await scope.gwrun(["retry", "--stuck"]).done;
      expect(retried.stderr).toContain("2 tasks of run 1 back to pending (stuck ones to polling)");
      expect(retried.code).toBe(0);
      const tasks = await scope.tasks();
      expect(tasks.map((task) => task.state)).toEqual(["done", "done"]);
      expect(tasks.map((task) => task.task_id)).toEqual(stuck.map((task) => task.task_id));
      expect(scope.sim.counters().submits.received).toBe(2);
    });
  });
});
