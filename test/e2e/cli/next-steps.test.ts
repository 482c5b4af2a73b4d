import { describe, expect, it } from "vitest";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";

/** A picture per subject, and a caption of each picture written from it. */
function chain(scope: RunScope): string {
  return scope.write(
    "chain.yaml",
    `${fastSettings(scope.outputDir)}name: chain
jobs:
  - id: shots
    model: acme-image-2
    matrix: { subject: [a ceramic mug, a teapot] }
    prompt: "{{subject}} on an oak table"
  - id: captions
    model: acme-image-2
    from: shots
    prompt: "the same scene at night"
    image_urls: ["{{input.url}}"]
`,
  );
}

describe("what to do next", () => {
  it("--only of a job whose upstream has no outputs is an error naming the upstream; with outputs it starts from them", async () => {
    await withRun({ seed: "only" }, async (scope) => {
      const manifest = chain(scope);
      const early = await scope.gwrun(["run", manifest, "--only", "captions"]).done;
      expect(early.code).toBe(2);
      expect(early.stderr).toContain(
        `--only captions: its upstream job "shots" has no outputs in ${scope.outputDir} yet`,
      );
      expect(early.stderr).toContain("run both: --only shots,captions");
      expect(scope.sim.counters().submits.received).toBe(0);

      const shots = await scope.gwrun(["run", manifest, "--only", "shots"]).done;
      expect(shots.code).toBe(0);
      expect(scope.sim.counters().submits.received).toBe(2);

      // The captions start from the shots on disk; the shots are not paid for again.
      const captions = await scope.gwrun(["run", manifest, "--only", "captions"]).done;
      expect(captions.code).toBe(0);
      expect(scope.sim.counters().submits.received).toBe(4);
      const tasks = await scope.tasks();
      expect(tasks.map((task) => [task.label, task.state]).sort()).toEqual([
        ["captions-of-shots-e1", "done"],
        ["captions-of-shots-e2", "done"],
      ]);
    });
  });

  it("retry --failed with nothing to retry says so and submits nothing", async () => {
    await withRun({ seed: "nothing" }, async (scope) => {
      const manifest = chain(scope);
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const submitted = scope.sim.counters().submits.received;
      const retried = await scope.gwrun(["retry", "--failed"]).done;
      expect(retried.code).toBe(0);
      expect(retried.stderr).toContain(
        "gwrun: run 1 (chain) has no failed, rejected or skipped tasks: nothing to retry, nothing submitted",
      );
      expect(scope.sim.counters().submits.received).toBe(submitted);
    });
  });
});
