import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

/**
 * Tasks that send the same request — a chained job whose template reads only what its
 * upstream outputs share, two jobs with one prompt — are each made, paid and delivered, as
 * `plan` counts them.
 */

const JOBS = `name: alike
jobs:
  - id: shots
    model: acme-image-2
    matrix: { item: [mug] }
    prompt: "A {{item}}"
    size: "256x256"
    repeat: 4
  - id: words
    endpoint: chat
    model: acme-5
    from: shots
    messages: [{ role: user, content: "A caption for a {{input.vars.item}}" }]
    stream: false
  - id: left
    model: acme-image-2
    prompt: one prompt for two jobs
    size: "256x256"
  - id: right
    model: acme-image-2
    prompt: one prompt for two jobs
    size: "256x256"
`;

interface Counted {
  plan: number;
  status: { tasks: number; awaiting: number; done: number };
  cost: number;
  results: number;
  gallery: number;
}

async function counted(scope: RunScope, manifest: string): Promise<Counted> {
  const plan = await scope.gwrun(["plan", manifest, "--json"]).done;
  const status = await scope.gwrun(["status", "--json"]).done;
  const cost = await scope.gwrun(["cost", "--json"]).done;
  expect(status.code, status.stderr).toBe(0);
  const shown = JSON.parse(status.stdout) as {
    tasks: number;
    awaiting_upstream: number;
    states: Record<string, number>;
  };
  const results = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
  const gallery = readFileSync(path.join(scope.outputDir, "index.html"), "utf8");
  return {
    plan: (JSON.parse(plan.stdout) as { totals: { tasks: number } }).totals.tasks,
    status: {
      tasks: shown.tasks,
      awaiting: shown.awaiting_upstream,
      done: shown.states.done ?? 0,
    },
    cost: (JSON.parse(cost.stdout) as { groups: { tasks: number }[] }).groups.reduce(
      (sum, group) => sum + group.tasks,
      0,
    ),
    results: results.trim().split("\n").length,
    gallery: gallery.match(/<figure\b/g)?.length ?? 0,
  };
}

describe.each(STORE_KINDS)("tasks that send the same request (%s)", (kind) => {
  it("are each made and delivered: plan, status, cost, results.jsonl and the gallery agree", async () => {
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write("alike.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
        const before = await scope.gwrun(["plan", manifest, "--json"]).done;
        expect(before.code, before.stderr).toBe(0);
        expect(JSON.parse(before.stdout).totals.tasks).toBe(10);

        const run = await scope.gwrun(["run", manifest]).done;
        expect(run.code, run.stderr).toBe(0);
        expect(scope.sim.counters().submits.accepted).toBe(6);
        expect(await counted(scope, manifest)).toEqual({
          plan: 10,
          status: { tasks: 10, awaiting: 0, done: 10 },
          cost: 10,
          results: 10,
          gallery: 10,
        });
        // Each upstream output has its own caption; each job its own picture.
        const files = (await scope.tasks()).map((task) => task.label).sort();
        expect(files).toEqual([
          "left",
          "right",
          "shots-r1",
          "shots-r2",
          "shots-r3",
          "shots-r4",
          "words-of-shots-r1",
          "words-of-shots-r2",
          "words-of-shots-r3",
          "words-of-shots-r4",
        ]);

        // Run again: every planned task is done, nothing is paid twice.
        const again = await scope.gwrun(["run", manifest]).done;
        expect(again.code, again.stderr).toBe(0);
        expect(scope.sim.counters().submits.accepted).toBe(6);
        const plan = await scope.gwrun(["plan", manifest, "--json"]).done;
        expect(JSON.parse(plan.stdout).totals.status).toMatchObject({ new: 0, done: 10 });
      },
      await runStoreOf(kind),
    );
  });
});
