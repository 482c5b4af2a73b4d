import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";

describe("retry --held", () => {
  it("a submit answered 500 waits held; retry --held sends it once more and it is done", async () => {
    await withRun({ seed: "held", faults: { createdErrorRate: 1 } }, async (scope) => {
      const settings = fastSettings(scope.outputDir).replace(
        /retry: \{([^}]*)\}/,
        "retry: {$1, on_unknown_submit: hold }",
      );
      const manifest = scope.write(
        "held.yaml",
        `${settings}name: held
jobs:
  - id: shot
    model: acme-image-2
    prompt: "a ceramic mug on an oak table"
`,
      );
      const first = await scope.gwrun(["run", manifest]).done;
      expect(first.code).toBe(1);
      const [held] = await scope.tasks();
      expect(held?.state).toBe("held");
      expect(held?.reason).toMatch(/500/);
      // The gateway made (and billed) the task it answered 500 for: nothing was sent again.
      expect(scope.sim.counters().submits.received).toBe(1);

      scope.sim.options.faults.createdErrorRate = 0;
      const retried = await scope.gwrun(["retry", "--held"]).done;
      expect(retried.code).toBe(0);
      expect((await scope.tasks()).map((task) => task.state)).toEqual(["done"]);
      expect(scope.sim.counters().submits.received).toBe(2);
    });
  });
});
