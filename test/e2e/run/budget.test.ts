import { afterEach, describe, expect, it } from "vitest";
import { QUICK, withProject } from "../../helpers/project.js";
import { startWebhook, type Webhook } from "../../helpers/webhook.js";

/**
 * Budgets across runs through the CLI on the simulator (0.1 a picture): a daily budget of 0.5
 * lets a first manifest pay 0.5 and stops a second before it pays anything, `plan` saying so
 * first; a soft limit is told in the summary and to `notify:`; the next day starts afresh.
 */

const hooks: Webhook[] = [];
afterEach(async () => {
  for (const hook of hooks.splice(0)) await hook.close();
});

function manifest(name: string, prompt: string, repeat: number, notify = ""): string {
  return `${QUICK}name: ${name}
limits: { unknown_cost: 0.1 }
${notify}jobs:
  - { id: hero, model: acme-image-2, prompt: "${prompt}", repeat: ${repeat} }
`.replace(/^limits: \{ submit_rate.*\n/m, "");
}

interface Standing {
  gateway: string;
  per: string;
  limit: number;
  spent: number;
  remaining: number;
  resets_at: string;
}

describe.each(["sqlite", "postgres"] as const)("a budget across runs (%s)", (kind) => {
  it("lets a first manifest pay 0.5 of a daily 0.5 and stops the second at once (exit 3), as plan said; the warning is told; the next day starts afresh", async () => {
    const hook = await startWebhook();
    hooks.push(hook);
    await withProject(kind, async (scope) => {
      const budget = (args: readonly string[]) =>
        scope.gwrun(["budget", ...args], { builtIn: true });
      const set = await budget(["set", "0.5", "--per", "day", "--warn-at", "80%"]);
      expect(set.code, set.stderr).toBe(0);
      const first = scope.write("mugs.yaml", manifest("mugs", "a mug", 5));
      const notify = `notify:\n  - { webhook: "${hook.url}/hook", on: [budget, done] }\n`;
      const second = scope.write("pots.yaml", manifest("pots", "a teapot", 3, notify));

      const planned = await scope.gwrun(["plan", first]);
      expect(planned.stdout).toMatch(
        /budget across runs: 0\.50 per day for every gateway \(UTC\): 0\.00 spent, 0\.50 left.*it covers the estimate/,
      );
      const ran = await scope.gwrun(["run", first]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain(
        "budget across runs: 0.5 of 0.5 per day spent today (100%), past the warning at 80%",
      );

      const warned = await scope.gwrun(["plan", second]);
      expect(warned.stdout).toMatch(
        /0\.50 spent, 0\.00 left.*the run would stop there, after about 0 of 3 new tasks \(exit 3\)/,
      );
      const stopped = await scope.gwrun(["run", second]);
      expect(stopped.code, stopped.stderr).toBe(3);
      expect(stopped.stderr).toContain(
        "budget reached: the daily budget of 0.5 for every gateway (0.5 spent or reserved today, UTC)",
      );
      expect(stopped.stderr).toContain("next: raise the budget across runs (gwrun budget set)");
      const [paid] = await scope.sql(
        "SELECT count(*) AS sent FROM jobs WHERE job_id = 'hero' AND run_id = 2 AND submitted_at IS NOT NULL",
      );
      expect(Number(paid?.sent)).toBe(0);
      const told = JSON.parse(hook.posts.at(-1)?.body ?? "{}") as {
        outcome?: string;
        budget_warnings?: string[];
      };
      expect(told.outcome).toBe("budget");
      expect(told.budget_warnings).toEqual([
        "budget across runs: 0.5 of 0.5 per day spent today (100%), past the warning at 80%",
      ]);

      const shown = await budget(["--json"]);
      const [standing] = JSON.parse(shown.stdout) as Standing[];
      expect(standing).toMatchObject({
        gateway: "",
        per: "day",
        limit: 0.5,
        spent: 0.5,
        remaining: 0,
      });

      // The day turns: what was sent yesterday counts no more, and the second runs.
      await scope.sql("UPDATE jobs SET submitted_at = submitted_at - 86400000");
      const next = await scope.gwrun(["run", second]);
      expect(next.code, next.stderr).toBe(0);
      const after = JSON.parse((await budget(["--json"])).stdout) as Standing[];
      expect(after[0]?.spent).toBe(0.3);

      const cleared = await budget(["clear"]);
      expect(cleared.code).toBe(0);
      expect((await budget([])).stdout).toContain("no budget set");
    });
  });
});

describe("a budget across runs on a PostgreSQL store", () => {
  it("holds on a PostgreSQL store, where the fleet's claims keep it", async () => {
    await withProject("postgres", async (scope) => {
      const set = await scope.gwrun(["budget", "set", "0.2", "--per", "week"], { builtIn: true });
      expect(set.code, set.stderr).toBe(0);
      const ran = await scope.gwrun([
        "run",
        scope.write("mugs.yaml", manifest("mugs", "a mug", 5)),
      ]);
      expect(ran.code, ran.stderr).toBe(3);
      expect(ran.stderr).toContain("budget reached: the weekly budget of 0.2 for every gateway");
      const [sent] = await scope.sql(
        "SELECT count(*) AS n FROM jobs WHERE submitted_at IS NOT NULL OR state = 'submitting'",
      );
      expect(Number(sent?.n)).toBe(2);
    });
  });
});
