import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { diffPlan } from "../../../src/plan/diff.js";
import { TaskState } from "../../../src/store/index.js";
import { group, NOW, scope, taskOf } from "../../helpers/plan-diff.js";

const SHOTS = `
version: 1
jobs:
  - { id: shots, model: acme2.7-image, prompt: a mug, repeat: 3 }
`;

describe("a plan against the store", () => {
  it("counts every task new with its cost when the store knows none of them", async () => {
    const { plan, templates } = await scope(SHOTS);
    const diff = await diffPlan(plan, undefined, {
      now: NOW,
      force: false,
      templates,
      outputDir: "/out",
    });
    expect(group(diff, "shots")).toMatchObject({
      tasks: 3,
      cost: 0.6,
      status: { new: 3, done: 0, in_flight: 0, failed: 0, expired: 0 },
      newCost: 0.6,
    });
    expect(diff.totals).toMatchObject({ newCost: 0.6, newWithUnknownCost: 0 });
    // The rows a run records, each with its status.
    expect(diff.tasks).toEqual(plan.tasks.map((task) => ({ ...task, status: "new" })));
  });

  it("counts a recorded task not yet sent as new", async () => {
    const { diff } = await scope(SHOTS);
    expect(group(await diff(), "shots").status.new).toBe(3);
  });

  it("counts a task done with its files intact as done, with nothing to pay", async () => {
    const { plan, set, output, diff } = await scope(SHOTS);
    for (const task of plan.tasks) {
      set(task.key, TaskState.Done);
      output(task.key, 0);
    }
    const diffed = await diff();
    expect(group(diffed, "shots")).toMatchObject({
      status: { new: 0, done: 3, in_flight: 0 },
      newCost: 0,
    });
    expect(diffed.tasks.map((task) => task.status)).toEqual(["done", "done", "done"]);
    expect(diffed.totals.newCost).toBe(0);
  });

  it("counts a done task whose file is gone in flight while its links work, new once they are dead", async () => {
    const { plan, set, output, diff } = await scope(SHOTS);
    const [live, dead, kept] = [taskOf(plan, 0), taskOf(plan, 1), taskOf(plan, 2)];
    for (const task of [live, dead, kept]) set(task.key, TaskState.Done);
    output(live.key, 0, { written: false });
    output(dead.key, 0, { written: false, linkExpires: NOW - 1 });
    output(kept.key, 0);
    const diffed = await diff();
    expect(diffed.tasks.map((task) => [task.label, task.status])).toEqual([
      [live.label, "in_flight"],
      [dead.label, "new"],
      [kept.label, "done"],
    ]);
    expect(group(diffed, "shots").newCost).toBe(0.2);
  });

  it("with --force counts the tasks done as new", async () => {
    const { plan, set, output, diff } = await scope(SHOTS);
    for (const task of plan.tasks) {
      set(task.key, TaskState.Done);
      output(task.key, 0);
    }
    expect(group(await diff(true), "shots")).toMatchObject({
      status: { new: 3, done: 0 },
      newCost: 0.6,
    });
  });

  it("counts a task the gateway holds, or whose outputs are on their way, in flight", async () => {
    const { plan, set, output, diff } = await scope(`
version: 1
jobs:
  - { id: shots, model: acme2.7-image, prompt: a mug, repeat: 4 }
`);
    const [submitted, processing, completed, downloaded] = plan.tasks.map((task) => task.key);
    set(submitted as string, TaskState.Submitted, { task_id: "t1" });
    set(processing as string, TaskState.Processing, { task_id: "t2" });
    set(completed as string, TaskState.Completed, { task_id: "t3" });
    set(downloaded as string, TaskState.Downloaded, { task_id: "t4" });
    output(downloaded as string, 0);
    expect(group(await diff(), "shots")).toMatchObject({
      status: { new: 0, in_flight: 4 },
      newCost: 0,
    });
  });

  it("counts a submit in flight while the process that claimed it lives, new once it died", async () => {
    const { plan, set, diff } = await scope(`
version: 1
jobs:
  - { id: shots, model: acme2.7-image, prompt: a mug, repeat: 2 }
`);
    // A claim from another machine may be alive; a pid that does not run here is not.
    set(taskOf(plan, 0).key, TaskState.Submitting, { claimed_by: `1@not-${hostname()}` });
    set(taskOf(plan, 1).key, TaskState.Submitting, { claimed_by: `2147483646@${hostname()}` });
    expect((await diff()).tasks.map((task) => task.status)).toEqual(["in_flight", "new"]);
  });

  it("counts failed, rejected and skipped tasks failed and expired ones expired: left for retry, not paid", async () => {
    const { plan, set, diff } = await scope(`
version: 1
jobs:
  - { id: shots, model: acme2.7-image, prompt: a mug, repeat: 4 }
`);
    const states = [TaskState.Failed, TaskState.Rejected, TaskState.Skipped, TaskState.Expired];
    plan.tasks.forEach((task, index) => {
      set(task.key, states[index] as TaskState, { reason: "gone" });
    });
    const diffed = await diff();
    expect(diffed.tasks.map((task) => task.status)).toEqual([
      "failed",
      "failed",
      "failed",
      "expired",
    ]);
    expect(group(diffed, "shots")).toMatchObject({
      status: { new: 0, failed: 3, expired: 1 },
      newCost: 0,
    });
  });
});
