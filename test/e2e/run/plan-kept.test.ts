import { cpSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { withProject } from "../../helpers/project.js";

/**
 * The plan is kept: for every example manifest, the tasks `plan --json` counts are the tasks
 * its run records (takes a judge asks for again come on top, within the plan's range).
 */

function manifestsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return manifestsUnder(path.join(dir, entry.name));
    return entry.name.endsWith(".yaml") ? [path.join(dir, entry.name)] : [];
  });
}

const MANIFESTS = manifestsUnder(path.join(ROOT, "manifests")).map((file) =>
  path.relative(ROOT, file),
);

const FAST_POLLS = `poll: { first_after: 20ms, every: 20ms, batch_size: 50 }
retry: { attempts: 4, min_delay: 5ms, max_delay: 50ms }
`;

interface PlanJson {
  totals: {
    tasks: number;
    tasksUpperBound: boolean;
    spend: { retakes: { upTo: number } | null };
  };
}

describe("plan against the run, for every example manifest", () => {
  it.each(MANIFESTS)("%s: its run records the tasks plan counts", async (manifest) => {
    await withProject("sqlite", async (scope) => {
      cpSync(path.join(ROOT, "manifests"), path.join(scope.project, "manifests"), {
        recursive: true,
      });
      // Polled and retried at the simulator's pace: what is counted does not change with it.
      const file = path.join(scope.project, manifest);
      const text = readFileSync(file, "utf8")
        .replace(/^(poll|retry):.*\n/gm, "")
        .replace(/^version: 1\n/m, `version: 1\n${FAST_POLLS}`);
      writeFileSync(file, text);
      const plan = await scope.gwrun(["plan", manifest, "--json"]);
      expect(plan.code, plan.stderr).toBe(0);
      const { totals } = JSON.parse(plan.stdout) as PlanJson;
      const ran = await scope.gwrun(["run", manifest]);
      expect([0, 1], ran.stderr).toContain(ran.code);
      const [firsts] = await scope.sql(
        `SELECT count(*) AS n FROM run_jobs r JOIN jobs j ON j.key = r.key
         WHERE r.run_id = 1 AND j.placeholder = 0 AND j.take = 1`,
      );
      const [retakes] = await scope.sql(
        `SELECT count(*) AS n FROM run_jobs r JOIN jobs j ON j.key = r.key
         WHERE r.run_id = 1 AND j.take > 1`,
      );
      const made = Number(firsts?.n);
      // An upper bound (a set of pictures of variable size) holds what was made.
      if (totals.tasksUpperBound) expect(made).toBeLessThanOrEqual(totals.tasks);
      else expect(made).toBe(totals.tasks);
      expect(Number(retakes?.n)).toBeLessThanOrEqual(totals.spend.retakes?.upTo ?? 0);
    });
  });
});
