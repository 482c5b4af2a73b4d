import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { recordInitialTasks } from "../../../src/api/record-plan.js";
import { checkManifestFile } from "../../../src/families/index.js";
import { planRun, TASK_PAGE } from "../../../src/plan/index.js";
import type { NewTask } from "../../../src/store/index.js";
import { mugsGrid, withRun } from "../../helpers/run.js";

/**
 * Through the CLI: a run records its tasks a page at a time, so a process that
 * dies while recording leaves a run with only some of them; resumed, it records the rest and
 * sends each task once.
 */

const TASKS = TASK_PAGE + 500;

describe("a run whose recording stopped between pages", () => {
  it("resumes, records the rest in the plan's order and sends each task once", async () => {
    await withRun({ seed: "pages" }, async (scope) => {
      const file = mugsGrid(scope, "pages", TASKS, (text) => text.replace("500/s", "2000/s"));
      const env = { GW_API_KEY: "test-key" };
      const checked = await checkManifestFile(file, env, Date.now(), { hold: "templates" });
      expect(checked.valid).toBe(true);
      const store = await scope.open();
      let runId: number;
      try {
        runId = await store.createRun({
          name: "pages",
          manifest_path: file,
          manifest_text: readFileSync(file, "utf8"),
          base_url: scope.sim.url,
          output_dir: scope.outputDir,
          started_at: Date.now(),
        });
        // The process dies once its first page is recorded.
        let pages = 0;
        const dying = {
          recordTasks: (id: number, tasks: readonly NewTask[], now: number) => {
            if (pages++ > 0) throw new Error("killed");
            return store.recordTasks(id, tasks, now);
          },
        };
        await expect(
          recordInitialTasks(dying, runId, checked, undefined, Date.now()),
        ).rejects.toThrow("killed");
        expect(await store.tasksOf(runId)).toHaveLength(TASK_PAGE);
      } finally {
        await store.close();
      }
      const resumed = await scope.gwrun(["resume", String(runId)]).done;
      expect(resumed.code).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(TASKS);
      const tasks = await scope.tasks();
      expect(tasks.filter((task) => task.state === "done")).toHaveLength(TASKS);
      // In the store in the plan's order: the first page, then the rest.
      const whole = await checkManifestFile(file, env, Date.now());
      const settings = whole.expanded.settings;
      if (settings === undefined) throw new Error("no settings");
      const planned = planRun(file, settings, whole.jobs).tasks.map((task) => task.key);
      expect(tasks.map((task) => task.key)).toEqual(planned);
    });
  });
});
