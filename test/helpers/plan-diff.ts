import { writeFileSync } from "node:fs";
import path from "node:path";
import { expect, onTestFinished } from "vitest";
import { sha256 } from "../../src/core/hash.js";
import { diffPlan, type PlanDiff } from "../../src/plan/diff.js";
import { planRun } from "../../src/plan/plan.js";
import { dependantTemplates } from "../../src/plan/tasks.js";
import { type NewTask, openStore, type TaskState } from "../../src/store/index.js";
import { checkInline, tempDir } from "./manifest.js";

/** A plan diffed against a state database, for the tests of `diffPlan`. */

export const NOW = Date.UTC(2025, 4, 1);
const HOUR = 3_600_000;

/** A manifest planned, an empty state database beside it, and `diff()` of the two. */
export async function scope(yaml: string) {
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

export function taskOf(plan: { tasks: readonly NewTask[] }, index: number): NewTask {
  const task = plan.tasks[index];
  if (task === undefined) throw new Error(`no task ${index}`);
  return task;
}

export function group(diff: PlanDiff, job: string) {
  const found = diff.groups.find((candidate) => candidate.job === job);
  if (found === undefined) throw new Error(`no group ${job}`);
  return found;
}
