import { writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { sha256 } from "../../src/core/hash.js";
import { diffPlan, type PlanDiff } from "../../src/plan/diff.js";
import { planRun } from "../../src/plan/plan.js";
import { dependantTasks, dependantTemplates } from "../../src/plan/tasks.js";
import { type NewTask, openStore, TaskState } from "../../src/store/index.js";
import { checkInline, tempDir } from "../helpers/manifest.js";

const NOW = Date.UTC(2025, 4, 1);
const HOUR = 3_600_000;

/** A manifest planned, an empty state database beside it, and `diff()` of the two. */
async function scope(yaml: string) {
  const checked = await checkInline(yaml);
  expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  if (checked.expanded.settings === undefined) throw new Error("no settings");
  const plan = planRun("manifest.yaml", checked.expanded.settings, checked.jobs);
  const dir = tempDir();
  const store = openStore(path.join(dir, "state.db"));
  onTestFinished(() => store.close());
  const runId = await store.createRun({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: dir,
    started_at: NOW,
  });
  await store.recordTasks(runId, plan.tasks, NOW);
  const templates = dependantTemplates(checked.jobs);
  return {
    plan,
    store,
    runId,
    templates,
    diff: (force = false) => diffPlan(plan, store, { now: NOW, force, templates, outputDir: dir }),
    /** Sets a recorded task's state (and columns) directly. */
    set(key: string, state: TaskState, columns: Record<string, unknown> = {}) {
      const names = Object.keys(columns);
      store.db
        .prepare(
          `UPDATE jobs SET state = ?${names.map((n) => `, ${n} = ?`).join("")} WHERE key = ?`,
        )
        .run(state, ...Object.values(columns), key);
    },
    /** Records output `idx` of a task: a file written now (unless `written` is false), its link. */
    output(
      key: string,
      idx: number,
      options: { linkExpires?: number; written?: boolean; contentType?: string } = {},
    ) {
      const file = path.join(dir, `${key.slice(0, 8)}-${idx}.png`);
      const content = `output ${idx} of ${key}`;
      if (options.written !== false) writeFileSync(file, content);
      store.db
        .prepare(
          `INSERT INTO outputs (job_key, idx, url, expires_at, state, path, bytes, sha256, content_type)
           VALUES (?, ?, ?, ?, 'downloaded', ?, ?, ?, ?)`,
        )
        .run(
          key,
          idx,
          `https://cdn.example/${key}/${idx}`,
          options.linkExpires ?? NOW + 24 * HOUR,
          file,
          Buffer.byteLength(content),
          sha256(content),
          options.contentType ?? "image/png",
        );
    },
  };
}

function taskOf(plan: { tasks: readonly NewTask[] }, index: number): NewTask {
  const task = plan.tasks[index];
  if (task === undefined) throw new Error(`no task ${index}`);
  return task;
}

function group(diff: PlanDiff, job: string) {
  const found = diff.groups.find((candidate) => candidate.job === job);
  if (found === undefined) throw new Error(`no group ${job}`);
  return found;
}

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

const FAN_OUT = `
version: 1
jobs:
  - { id: hero, model: acme2.7-image, prompt: a mug, n: 2, repeat: 2 }
  - id: variant
    model: acme2.7-image
    from: hero
    prompt: a variant
    image_urls: ["{{input.url}}"]
`;

describe("a plan's from: jobs against the store", () => {
  it("counts the dependants of an upstream without outputs from its expected outputs, as new", async () => {
    const { plan, set, diff } = await scope(FAN_OUT);
    set(taskOf(plan, 0).key, TaskState.Processing, { task_id: "t1" });
    const diffed = await diff();
    // 2 hero tasks × 2 images each, one variant per image.
    expect(group(diffed, "variant")).toMatchObject({
      status: { new: 4, done: 0 },
      statusExact: true,
      newCost: 0.8,
    });
    // Only the tasks a run records at its start are rows.
    expect(diffed.tasks.map((task) => task.jobId)).toEqual(["hero", "hero"]);
  });

  it("keys the dependants of an upstream done as the run does, and diffs those recorded", async () => {
    const { plan, store, runId, templates, set, output, diff } = await scope(FAN_OUT);
    const hero = taskOf(plan, 0);
    set(hero.key, TaskState.Done);
    output(hero.key, 0);
    output(hero.key, 1);
    // The run recorded the variant of the first image and finished it.
    const [first] = dependantTasks(
      templates.get("hero") ?? [],
      { key: hero.key, label: hero.label, outputIndex: 0, outputs: 2 },
      {
        label: hero.label,
        kind: "media",
        url: "https://cdn.example/0",
        dataUri: () => "",
        text: () => "",
      },
    );
    if (first === undefined) throw new Error("no dependant");
    await store.recordTasks(runId, [first.task], NOW);
    set(first.task.key, TaskState.Done);
    output(first.task.key, 0);
    expect(group(await diff(), "variant")).toMatchObject({
      // The first image's variant is done; the second's is to make; the other hero's two wait.
      status: { new: 3, done: 1 },
      newCost: 0.6,
    });
  });

  it("counts a skipped dependant of an upstream now done as new: the run brings it back", async () => {
    const { plan, store, runId, templates, set, output, diff } = await scope(FAN_OUT);
    const hero = taskOf(plan, 0);
    set(hero.key, TaskState.Done);
    output(hero.key, 0);
    output(hero.key, 1);
    const dependants = dependantTasks(
      templates.get("hero") ?? [],
      { key: hero.key, label: hero.label, outputIndex: 0, outputs: 2 },
      { label: hero.label, kind: "media", url: "https://x/0", dataUri: () => "", text: () => "" },
    );
    await store.recordTasks(
      runId,
      dependants.map(({ task }) => task),
      NOW,
    );
    for (const { task } of dependants) set(task.key, TaskState.Skipped, { reason: "upstream" });
    expect(group(await diff(), "variant").status).toMatchObject({ new: 4, failed: 0 });
  });

  it("ignores dependants recorded from an earlier version of the from: job", async () => {
    const { plan, store, runId, set, output, diff } = await scope(FAN_OUT);
    const hero = taskOf(plan, 0);
    set(hero.key, TaskState.Done);
    output(hero.key, 0);
    output(hero.key, 1);
    const old = await scope(FAN_OUT.replace("a variant", "an older variant"));
    const [stale] = dependantTasks(
      old.templates.get("hero") ?? [],
      { key: hero.key, label: hero.label, outputIndex: 0, outputs: 2 },
      { label: hero.label, kind: "media", url: "https://x/0", dataUri: () => "", text: () => "" },
    );
    if (stale === undefined) throw new Error("no dependant");
    await store.recordTasks(runId, [stale.task], NOW);
    set(stale.task.key, TaskState.Done);
    output(stale.task.key, 0);
    expect(group(await diff(), "variant").status).toMatchObject({ new: 4, done: 0 });
  });

  it("counts a dependant whose input can no longer be sent failed, not new", async () => {
    const { plan, set, output, diff } = await scope(`
version: 1
jobs:
  - { id: shots, model: acme2.7-image, prompt: a mug }
  - id: clip
    model: acme-v4-fast
    from: shots
    first_frame_image: "{{input.url}}"
    prompt: a slow orbit
    resolution: 720p
    duration: 5
`);
    const shots = taskOf(plan, 0);
    set(shots.key, TaskState.Done);
    // Its file is intact, its link dead: this family takes no Data URI in its place.
    output(shots.key, 0, { linkExpires: NOW - 1 });
    expect(group(await diff(), "clip").status).toMatchObject({ new: 0, failed: 1 });
  });

  it("counts the dependants of a failed upstream failed: they wait for its retry", async () => {
    const { plan, set, diff } = await scope(FAN_OUT);
    set(taskOf(plan, 0).key, TaskState.Failed, { reason: "gone" });
    expect(group(await diff(), "variant")).toMatchObject({
      status: { new: 2, failed: 2 },
      newCost: 0.4,
    });
  });

  it("follows a chain of from: jobs down from what each step should make", async () => {
    const { diff } = await scope(`
version: 1
jobs:
  - id: captions
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "a caption" }]
    n: 3
  - { id: images, model: acme2.7-image, from: captions, prompt: "{{input.text}}", n: 2 }
  - id: clips
    model: acme-video-2.3-Fast
    from: images
    first_frame_image: "{{input.url}}"
    prompt: "[推进] push in"
`);
    const diffed = await diff();
    // As many as the plan counts for the manifest, all new.
    expect(diffed.groups.map((entry) => [entry.tasks, entry.cost])).toEqual([
      [1, null],
      [3, 1.2],
      [6, null],
    ]);
    expect(
      diffed.groups.map((entry) => [
        entry.job,
        entry.status.new,
        entry.newCost,
        entry.newWithUnknownCost,
        entry.statusExact,
      ]),
    ).toEqual([
      ["captions", 1, 0, 1, true],
      // acme2.7-image is priced per image: 0.2 × 2 per task.
      ["images", 3, 1.2, 0, true],
      ["clips", 6, 0, 6, true],
    ]);
    expect(diffed.totals).toMatchObject({
      status: { new: 10 },
      statusUpperBound: false,
      newCost: 1.2,
      newWithUnknownCost: 7,
    });
  });
});
