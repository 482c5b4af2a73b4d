import path from "node:path";
import { describe, expect, it } from "vitest";
import { recordInitialTasks } from "../../../src/api/record-plan.js";
import { checkManifestFile } from "../../../src/families/index.js";
import { planRun, TASK_PAGE } from "../../../src/plan/index.js";
import type { NewTask } from "../../../src/store/index.js";
import { manyTasksManifest, tempDir } from "../../helpers/manifest.js";

/**
 * The start of a run holds a page of its planned tasks at a time, and
 * the checked manifest it runs holds one expansion per job, not every task.
 */

const TASKS = 50_000;

const manyTasks = () => manyTasksManifest(TASKS, 250);

describe("recording a run's plan", () => {
  it("records a plan of 50,000 tasks never holding more than a page of them, in the plan's order", async () => {
    const file = manyTasks();
    const held = await checkManifestFile(file, {}, Date.now(), { hold: "templates" });
    expect(held.valid).toBe(true);
    // What the run keeps of its checked manifest: one expansion per job, none expanded held.
    expect(held.jobs).toHaveLength(2);
    expect(held.expanded.jobs).toHaveLength(0);
    const pages: number[] = [];
    const recorded: NewTask[] = [];
    const counting = {
      async recordTasks(_runId: number, tasks: readonly NewTask[]) {
        pages.push(tasks.length);
        recorded.push(...tasks);
        return new Set(tasks.map((task) => task.key));
      },
    };
    await recordInitialTasks(counting, 1, held, undefined, 0);
    expect(Math.max(...pages)).toBeLessThanOrEqual(TASK_PAGE);
    expect(pages.length).toBeGreaterThanOrEqual(TASKS / TASK_PAGE);
    // The same tasks, in the same order, as a plan made from every expansion held at once.
    const whole = await checkManifestFile(file, {}, Date.now());
    const settings = whole.expanded.settings;
    if (settings === undefined) throw new Error("no settings");
    const planned = planRun(file, settings, whole.jobs).tasks;
    expect(recorded).toHaveLength(TASKS + 3);
    expect(recorded.map((task) => JSON.stringify(task))).toEqual(
      planned.map((task) => JSON.stringify(task)),
    );
  });

  it("validating holds what the rules need, and finds the same problems as holding every expansion", async () => {
    const dir = tempDir({
      "manifest.yaml": `version: 1
name: twins
jobs:
  - id: grid
    model: acme2.7-image
    prompt: "a mug"
    matrix: { style: [a, b, c] }
  - id: labelled
    model: acme-image-2
    prompt: "a mug {{shade}}"
    label: "same"
    matrix: { shade: [red, blue] }
`,
    });
    const file = path.join(dir, "manifest.yaml");
    const held = await checkManifestFile(file, {}, 0, { hold: "templates" });
    const whole = await checkManifestFile(file, {}, 0);
    expect(held.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule}`)).toEqual([
      "7:15 same-request",
      "11:12 label-collision",
    ]);
    expect(held.diagnostics).toEqual(whole.diagnostics);
    expect(held.jobs.length).toBeLessThan(whole.jobs.length);
  });
});
