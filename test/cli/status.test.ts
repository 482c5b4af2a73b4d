import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../helpers/run.js";

describe("gwrun status and runs", () => {
  it("item 6 and item 8: status counts jobs and tasks per job id (not per family) with the run's times; runs shows start, duration and tick", async () => {
    await withRun({ seed: "status" }, async (scope) => {
      const manifest = scope.write(
        "two.yaml",
        `${fastSettings(scope.outputDir)}name: two
jobs:
  - id: hero
    model: acme-image-2
    prompt: a ceramic mug
    repeat: 2
  - id: detail
    model: acme-image-2
    prompt: the handle of a ceramic mug
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const status = (await scope.gwrun(["status"]).done).stdout;
      expect(status).toMatch(/^run 1: two — done \(exit 0\), started \S+Z, took \d+s$/m);
      expect(status).toContain("  2 jobs, 3 tasks: 3 done; paid");
      expect(status).toMatch(/^ {2}hero {4}image-a {8}2 done$/m);
      expect(status).toMatch(/^ {2}detail {2}image-a {8}1 done$/m);
      // A SQLite store has no fleet.
      expect(status).not.toContain("fleet");
      const json = JSON.parse((await scope.gwrun(["status", "--json"]).done).stdout);
      expect(json).not.toHaveProperty("fleet");
      expect(json).toMatchObject({
        tasks: 3,
        jobs: [
          { id: "hero", family: "image-a", tasks: 2, states: { done: 2 } },
          { id: "detail", family: "image-a", tasks: 1, states: { done: 1 } },
        ],
      });

      const runs = (await scope.gwrun(["runs"]).done).stdout.split("\n");
      expect(runs[0]).toMatch(/^ run {2}name +status +started +took +paid +tick +manifest$/);
      expect(runs[1]).toMatch(
        /^ {3}1 {2}two +done +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z +\d+s +[\d.]+ +– +\S+two\.yaml$/,
      );
    });
  }, 60_000);
});
