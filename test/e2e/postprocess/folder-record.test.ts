import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";
import { readResults } from "./review.js";

/** The output figures of a gallery page in the output folder. */
function figures(outputDir: string, page: string): number {
  return (
    readFileSync(path.join(outputDir, page), "utf8").split('<figure class="output">').length - 1
  );
}

describe("the output folder's record", () => {
  it("a partial run keeps every output of the folder in results.jsonl and the gallery; gwrun report RUN writes that run's own beside them", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "folder.yaml",
        `${fastSettings(scope.outputDir)}name: folder
jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "256x256", repeat: 2 }
  - id: detail
    model: acme-image-2
    matrix: { angle: [side, top] }
    prompt: "a mug from the {{angle}}"
    size: "256x256"
  - { id: wide, model: acme-image-2, prompt: "a mug on a long table", size: "256x256" }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const whole = readResults(scope.outputDir);
      expect(whole).toHaveLength(5);

      const partial = await scope.gwrun(["run", manifest, "--only", "wide", "--force"]).done;
      expect(partial.code).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(6);
      const after = readResults(scope.outputDir);
      expect(after.map((record) => record.label)).toEqual(whole.map((record) => record.label));
      expect(after.find((record) => record.job === "wide")?.task_id).not.toBe(
        whole.find((record) => record.job === "wide")?.task_id,
      );
      expect(figures(scope.outputDir, "index.html")).toBe(5);

      const report = await scope.gwrun(["report", "2"]).done;
      expect(report.code).toBe(0);
      expect(report.stdout).toMatch(/folder .*: 5 outputs, 0 failures/);
      expect(report.stdout).toMatch(/run-2\.html\n.*run-2\.jsonl\nrun 2: 1 outputs, 0 failures/);
      expect(readResults(scope.outputDir, "run-2.jsonl").map((record) => record.label)).toEqual([
        "wide",
      ]);
      expect(figures(scope.outputDir, "run-2.html")).toBe(1);
      expect(readResults(scope.outputDir)).toEqual(after);
    });
  });

  it("gwrun report RUN writes the folder's record and the run's from one reading, each as written alone", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "folder.yaml",
        `${fastSettings(scope.outputDir)}name: folder
jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "256x256", repeat: 2 }
  - { id: wide, model: acme-image-2, prompt: "a mug on a long table", size: "256x256" }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const read = (name: string) => readFileSync(path.join(scope.outputDir, name), "utf8");
      expect((await scope.gwrun(["report"]).done).code).toBe(0);
      const alone = { gallery: read("index.html"), results: read("results.jsonl") };
      const both = await scope.gwrun(["report", "1"]).done;
      expect(both.code).toBe(0);
      expect(both.stdout).toMatch(/folder .*: 3 outputs, 0 failures/);
      expect(both.stdout).toMatch(/run 1: 3 outputs, 0 failures/);
      expect({ gallery: read("index.html"), results: read("results.jsonl") }).toEqual(alone);
      // The run wrote everything in its folder: its own record lists the same outputs.
      expect(read("run-1.jsonl")).toBe(alone.results);
      expect(figures(scope.outputDir, "run-1.html")).toBe(3);
    });
  });
});
