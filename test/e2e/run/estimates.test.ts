import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { ROOT } from "../../helpers/root.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

/**
 * Money figures mean one thing: a task of unknown price is estimated at `limits.unknown_cost`
 * (or not at all) by `plan`, the run's summary, `gwrun status` and `gwrun cost` alike, in the
 * same words; `plan` says where `max_cost` stops a run, and counts judge calls and retakes.
 */

const JOBS = `name: spend
jobs:
  - { id: shots, model: acme-image-2, prompt: "a mug", size: "256x256", repeat: 4 }
  - { id: words, endpoint: chat, model: acme-5, messages: [{ role: user, content: "A caption" }], stream: false, repeat: 4 }
`;

function settings(scope: RunScope, limits: string): string {
  return fastSettings(scope.outputDir).replace("downloads: 8 }", `downloads: 8, ${limits} }`);
}

/** `estimated 3.00 (…)` as a line says it. */
function estimateIn(text: string): string | undefined {
  return /estimated [\d.]+(?: \([^)]*\))?/.exec(text)?.[0];
}

describe.each(STORE_KINDS)("estimates and the budget (%s)", (kind) => {
  it("counts unpriced tasks at unknown_cost in plan, the summary, status and cost, and plan says where max_cost stops the run", async () => {
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write(
          "spend.yaml",
          `${settings(scope, "unknown_cost: 0.1, max_cost: 0.45")}${JOBS}`,
        );
        const plan = await scope.gwrun(["plan", manifest]).done;
        expect(plan.stdout).toContain(
          "estimated cost 0.10 × 8 unknown-price tasks at unknown_cost = 0.80",
        );
        expect(plan.stdout).toContain(
          "budget: the run would stop at max_cost 0.45, after about 4 of 8 new tasks (exit 3)",
        );
        // A picture costs what it reserves (0.1); an answer reports no cost and stays counted
        // at its reservation: four tasks fit under the cap, whichever a driver sends first.
        const run = await scope.gwrun(["run", manifest]).done;
        expect(run.code, run.stderr).toBe(3);
        const summary = run.stderr.split("\n").find((line) => /run 1 stopped after/.test(line));
        expect(summary).toMatch(
          /paid [\d.]+ of 0\.45, estimated 0\.40 \(4 tasks at unknown_cost(; paid [\d.]+ less)?\)/,
        );
        const cost = await scope.gwrun(["cost", "1"]).done;
        const status = await scope.gwrun(["status"]).done;
        const words = estimateIn(summary ?? "");
        expect(words).toBeDefined();
        expect(estimateIn(cost.stdout.split("\n")[0] ?? "")).toBe(words);
        expect(estimateIn(status.stdout)).toBe(words);
        expect(cost.stdout).not.toMatch(/more than estimated/);
        const json = JSON.parse((await scope.gwrun(["cost", "1", "--json"]).done).stdout);
        expect(json).toMatchObject({ estimate: 0.4, atUnknownCost: 4, unpriced: 0 });
      },
      await runStoreOf(kind),
    );
  });

  it("without unknown_cost names the tasks of unknown price, and claims no difference", async () => {
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write("spend.yaml", `${settings(scope, "max_cost: 30")}${JOBS}`);
        const plan = await scope.gwrun(["plan", manifest]).done;
        expect(plan.stdout).toContain(
          "budget: max_cost 30.00 cannot be held to the estimate: some prices are unknown (set limits.unknown_cost)",
        );
        const run = await scope.gwrun(["run", manifest]).done;
        expect(run.code, run.stderr).toBe(0);
        const cost = await scope.gwrun(["cost", "1"]).done;
        const [head] = cost.stdout.split("\n");
        expect(head).toMatch(/^cost of run 1 \(spend\) by job: paid [\d.]+$/);
        expect(cost.stdout).toMatch(/ {2}shots +4 +[\d.]+ +0\.00 \+ 4 unknown\n/);
        expect(run.stderr).not.toMatch(/estimated|than estimated/);
      },
      await runStoreOf(kind),
    );
  });
});

describe("plan counts judge calls and the takes on_fail: retry may add", () => {
  it("as a range, within max_cost", async () => {
    const dir = tempDir({
      "judged.yaml": readFileSync(path.join(ROOT, "manifests/judged.yaml"), "utf8"),
    });
    const plan = await gwrun([
      "plan",
      path.join(dir, "judged.yaml"),
      "--db",
      path.join(dir, "s.db"),
    ]);
    expect(plan.code, plan.stderr).toBe(0);
    // Eight shots at 0.04, each judged once; a "no" makes a shot again, at most 4 times in all.
    expect(plan.stdout).toMatch(
      /judge: 8 calls, one per new output of a judged job, at [\d.]+: [\d.]+/,
    );
    expect(plan.stdout).toContain(
      "on_fail: retry may make up to 24 more takes (each judged again)",
    );
    expect(plan.stdout).toMatch(/estimated spend of this run: 0\.3\d to 1\.\d\d with every retake/);
    expect(plan.stdout).toContain("budget: max_cost 5.00 covers the estimate");
    const json = JSON.parse(
      (
        await gwrun([
          "plan",
          path.join(dir, "judged.yaml"),
          "--json",
          "--db",
          path.join(dir, "s.db"),
        ])
      ).stdout,
    );
    expect(json.totals.spend).toMatchObject({
      tasks: 0.32,
      judge: { calls: 8 },
      retakes: { upTo: 24 },
      budget: { maxCost: 5, verdict: "within" },
    });
  });
});
