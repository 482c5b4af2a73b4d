import { rmSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { type NewTask, openStore } from "../../../src/store/index.js";
import { type CliResult, gwrunHere, ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { rowOf } from "../../helpers/plan-table.js";

describe("gwrun plan against the state a run left", () => {
  // The demo manifest, run offline against the built-in simulator; its outputs land in `dir`.
  const dir = tempDir();
  const db = path.join(dir, "gwrun.db");
  const manifest = path.join(ROOT, "manifests/campaign.yaml");
  const env = { GWRUN_SIM_TIME_SCALE: "600" };
  const jobs = ["hero", "styles", "glaze", "lifestyle", "teaser", "captions"];
  const plan = async (...args: string[]): Promise<CliResult> => {
    const result = await gwrunHere(["plan", manifest, "--db", db, ...args], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    return result;
  };
  let before: CliResult;

  beforeAll(async () => {
    before = await plan();
    const run = await gwrunHere(["run", manifest, "--db", db, "--quiet"], { cwd: dir, env });
    expect(run.code, run.stderr).toBe(0);
  });

  it("lists every task as new with its cost before a run, and creates no database", () => {
    expect(before.stdout).toContain(`state: ${db} does not exist yet: every task is new`);
    // The demo reserves unknown_cost: 0.5 for each task whose price the spec does not state.
    expect(rowOf(before.stdout, "hero")).toEqual(["2", "0", "0", "0", "0.50 × 2"]);
    expect(rowOf(before.stdout, "styles")).toEqual(["4", "0", "0", "0", "0.80"]);
    expect(rowOf(before.stdout, "glaze")).toEqual(["1", "0", "0", "0", "0.50"]);
    expect(rowOf(before.stdout, "teaser")).toEqual(["2", "0", "0", "0", "0.50 × 2"]);
    expect(before.stdout).toContain(
      "of these: 11 new (cost 1.30 + 0.50 × 6 unknown-price tasks at unknown_cost = 4.30), 0 done, 0 in flight, 0 failed/expired",
    );
  });

  it("lists every task done and nothing to pay after the run", async () => {
    const after = await plan();
    for (const job of jobs) {
      const [added, done, inFlight, failed, cost] = rowOf(after.stdout, job);
      expect([added, inFlight, failed, cost], job).toEqual(["0", "0", "0", "0.00"]);
      expect(Number(done), job).toBeGreaterThan(0);
    }
    expect(after.stdout).toContain(
      "of these: 0 new (cost 0.00), 11 done, 0 in flight, 0 failed/expired",
    );
  });

  it("prints with --json exactly the rows the run recorded, each with its status", async () => {
    const printed = JSON.parse((await plan("--json")).stdout) as {
      tasks: (NewTask & { status: string })[];
    };
    const store = openStore(db);
    try {
      const run = await store.latestRun();
      const recorded = (await store.tasksOf(run?.id ?? 0)).filter(
        (task) => task.upstream_key === null,
      );
      expect(printed.tasks).toEqual(
        recorded.map((task) => ({
          key: task.key,
          jobId: task.job_id,
          label: task.label,
          family: task.family,
          lane: task.lane,
          endpoint: task.endpoint,
          request: task.request,
          upstreamKey: null,
          estimatedCost: task.estimated_cost,
          vars: task.vars === null ? {} : JSON.parse(task.vars),
          repeatIndex: task.repeat_index,
          status: "done",
        })),
      );
    } finally {
      await store.close();
    }
  });

  it("shows a task whose file is gone in flight while its links work, and new once they are dead", async () => {
    const store = openStore(db);
    let file: string | null | undefined;
    try {
      const hero = (await store.tasksOf((await store.latestRun())?.id ?? 0)).find(
        (task) => task.label === "hero-r1",
      );
      file = (await store.outputsOf(hero?.key ?? ""))[0]?.path;
    } finally {
      await store.close();
    }
    if (file === null || file === undefined) throw new Error("hero-r1 has no file");
    rmSync(file);
    // The simulator's links live 24 h: the run would download it again, paying nothing.
    const live = await plan();
    expect(rowOf(live.stdout, "hero")).toEqual(["0", "1", "1", "0", "0.00"]);
    expect(live.stdout).toContain(
      "of these: 0 new (cost 0.00), 10 done, 1 in flight, 0 failed/expired",
    );
    const expire = openStore(db);
    try {
      expire.db.prepare("UPDATE outputs SET expires_at = 1 WHERE path = ?").run(file);
    } finally {
      await expire.close();
    }
    // Links dead: the run would make it again, and only it.
    const dead = await plan();
    expect(rowOf(dead.stdout, "hero")).toEqual(["1", "1", "0", "0", "0.50 × 1"]);
    expect(dead.stdout).toContain(
      "of these: 1 new (cost 0.50 × 1 unknown-price task at unknown_cost = 0.50), 10 done, 0 in flight, 0 failed/expired",
    );
    const printed = JSON.parse((await plan("--json")).stdout) as {
      tasks: { label: string; status: string }[];
    };
    expect(
      printed.tasks.filter((task) => task.status !== "done").map((task) => task.label),
    ).toEqual(["hero-r1"]);
    expect(printed.tasks.find((task) => task.label === "hero-r1")?.status).toBe("new");
  });
});
