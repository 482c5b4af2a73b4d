import path from "node:path";
import { describe, expect, it } from "vitest";
import { planManifestAt } from "../../../src/api/plan.js";
import { diffPlanPages, type PlannedTask, TASK_PAGE } from "../../../src/plan/index.js";
import type { NewTask } from "../../../src/store/index.js";
import { manyTasksManifest } from "../../helpers/manifest.js";

/**
 * `gwrun plan` of a manifest of any size holds a page of its tasks at a time:
 * each task is given on as its page is planned, and the totals come once all have been.
 */

const TASKS = 20_000;

const manyTasks = () => manyTasksManifest(TASKS, 100);

describe("a plan of many tasks", () => {
  it("gives each page's tasks on before the next page is made", async () => {
    const file = manyTasks();
    const whole = await planManifestAt(file, { db: path.join(path.dirname(file), "none.db") });
    const tasks = whole.plan?.tasks ?? [];
    expect(tasks).toHaveLength(TASKS + 3);
    const head = { ...whole.plan, tasks: [] } as never;
    const events: string[] = [];
    async function* pages(): AsyncGenerator<NewTask[]> {
      for (let at = 0; at < tasks.length; at += TASK_PAGE) {
        events.push(`page ${at / TASK_PAGE}`);
        yield tasks.slice(at, at + TASK_PAGE);
      }
    }
    const given: PlannedTask[] = [];
    const options = { now: 0, force: false, templates: new Map(), outputDir: "/none" };
    await diffPlanPages({ head: () => head, pages: pages() }, undefined, options, (task) => {
      if (given.length % TASK_PAGE === 0) events.push(`tasks ${given.length / TASK_PAGE}`);
      given.push(task);
    });
    const pagesMade = Math.ceil(tasks.length / TASK_PAGE);
    expect(events).toEqual(
      Array.from({ length: pagesMade }, (_, i) => [`page ${i}`, `tasks ${i}`]).flat(),
    );
    expect(given).toEqual(tasks);
  });

  it("the API's plan given task by task is the plan held whole, and holds no tasks", async () => {
    const file = manyTasks();
    const db = path.join(path.dirname(file), "none.db");
    const whole = await planManifestAt(file, { db });
    const given: PlannedTask[] = [];
    const streamed = await planManifestAt(file, { db, onTask: (task) => given.push(task) });
    expect(streamed.plan?.tasks).toEqual([]);
    expect(given).toEqual(whole.plan?.tasks);
    expect({ ...streamed.plan, tasks: undefined }).toEqual({ ...whole.plan, tasks: undefined });
    expect(streamed.plan?.totals.tasks).toBe(TASKS + 3);
  });
});
