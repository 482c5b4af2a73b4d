import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../helpers/cli.js";
import { testDatabase } from "../../helpers/postgres.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { mixedJobs } from "../../helpers/run-manifests.js";

describe("gwrun on a PostgreSQL store", () => {
  it("runs a manifest to verified files, and status, runs, report and resume read it back", async () => {
    const url = await testDatabase();
    const password = new URL(url).password;
    const migrated = await gwrun(["store", "migrate"], { env: { GWRUN_STORE: url } });
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/created the schema of the store at/);
    expect(migrated.stdout).not.toContain(password);
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write(
          "pg.yaml",
          `${fastSettings(scope.outputDir)}name: pg\n${mixedJobs(20, 2)}`,
        );
        const first = await scope.gwrun(["run", manifest]).done;
        expect(first.stderr).toMatch(/run 1 done after [^:]+: 22 tasks, 22 done/);
        expect(first.code).toBe(0);
        const tasks = await scope.tasks();
        expect(tasks.map((task) => task.state)).toEqual(Array(22).fill("done"));
        for (const task of tasks) expect(existsSync(task.outputs[0]?.path ?? "")).toBe(true);
        expect(scope.sim.counters().submits.accepted).toBe(22);

        const status = await scope.gwrun(["status", "--json"]).done;
        expect(status.code).toBe(0);
        expect(JSON.parse(status.stdout)).toMatchObject({ run: { id: 1, status: "done" } });
        const runs = await scope.gwrun(["runs"]).done;
        expect(runs.code).toBe(0);
        expect(runs.stdout).toMatch(/\bpg\b/);
        const report = await scope.gwrun(["report", "1"]).done;
        expect(report.code).toBe(0);
        expect(existsSync(path.join(scope.outputDir, "results.jsonl"))).toBe(true);
        const resumed = await scope.gwrun(["resume"]).done;
        expect(resumed.code).toBe(0);
        // Nothing is paid for twice.
        expect(scope.sim.counters().submits.accepted).toBe(22);
        for (const result of [first, status, runs, report, resumed])
          expect(result.stdout + result.stderr).not.toContain(password);
      },
      url,
    );
  });

  it("says which store cannot be used, without its password", async () => {
    const url = new URL(await testDatabase());
    url.password = "not-the-password";
    const result = await gwrun(["runs"], { env: { GWRUN_STORE: url.toString() } });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/PostgreSQL refused the login at postgres:\/\/postgres:\*\*\*@/);
    expect(result.stderr).not.toContain("not-the-password");
  });
});
