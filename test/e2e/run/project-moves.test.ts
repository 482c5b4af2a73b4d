import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  copyDemo,
  type StoreKind,
  shopManifest,
  startView,
  withProject,
} from "../../helpers/project.js";

const SHOP = shopManifest();

/** Every file below `dir` with its modification time, to see that nothing touched it. */
function snapshot(dir: string): Map<string, number> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) =>
    entry.isFile(),
  );
  return new Map(
    files.map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      return [file, statSync(file).mtimeMs];
    }),
  );
}

/** The NDJSON events of a `--json` run, by type. */
function eventTypes(stdout: string): string[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

describe("the record holds wherever the project sits", () => {
  it("the demo project, moved, plans 0 new and runs again with no submit and no download", async () => {
    await withProject("sqlite", async (scope) => {
      const demo = copyDemo(scope);
      const first = await scope.gwrun(["run", demo, "--json"], { builtIn: true });
      expect(first.code).toBe(0);
      expect(eventTypes(first.stdout)).toContain("task:submitted");
      scope.move("elsewhere/deeper/moved-project");
      const plan = await scope.gwrun(["plan", demo]);
      expect(plan.stdout).toMatch(/of these: 0 new \(cost 0\.00\), 11 done, 0 in flight/);
      const again = await scope.gwrun(["run", demo, "--json"], { builtIn: true });
      expect(again.code).toBe(0);
      const types = eventTypes(again.stdout);
      for (const paid of [
        "task:submitting",
        "task:submitted",
        "output:downloaded",
        "output:delivered",
      ])
        expect(types).not.toContain(paid);
      const finished = again.stdout.split("\n").find((line) => line.includes('"run:finished"'));
      expect(JSON.parse(finished ?? "{}")).toMatchObject({ paid: 0, spent: 2.2 });
    });
  });

  it.each<StoreKind>([
    "sqlite",
    "postgres",
  ])("%s: a moved project neither submits nor downloads again, by the gateway's count", async (kind) => {
    await withProject(kind, async (scope) => {
      const manifest = scope.write("shop.yaml", SHOP);
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      const paid = scope.sim.counters();
      scope.move("moved/project");
      expect((await scope.gwrun(["plan", manifest])).stdout).toMatch(/of these: 0 new/);
      const again = await scope.gwrun(["run", manifest]);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(/paid 0 this run/);
      const now = scope.sim.counters();
      expect(now.submits.received).toBe(paid.submits.received);
      expect(now.downloads.served).toBe(paid.downloads.served);
      expect(now.text.calls).toBe(paid.text.calls);
      const results = readFileSync(
        path.join(scope.project, "data/outputs/shop/results.jsonl"),
        "utf8",
      );
      expect(results.trim().split("\n")).toHaveLength(5);
    });
  });

  it("a manifest copied into another project plans as new there, and says its tasks are done in the store of the folder it was copied from", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", SHOP);
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      const other = path.join(path.dirname(scope.project), "other");
      mkdirSync(path.join(other, ".git"), { recursive: true });
      mkdirSync(path.join(other, "manifests"));
      const copied = path.join(other, "manifests", "shop.yaml");
      copyFileSync(path.join(scope.project, manifest), copied);
      const plan = await scope.gwrun(["plan", copied]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toContain("does not exist yet: every task is new");
      const ours = path.join(scope.project, "data", "gwrun.db");
      expect(plan.stdout).toContain(
        `  elsewhere: 5 of these tasks are recorded in ${ours}, the store of the folder you are in, not in ${path.join(other, "data", "gwrun.db")} of this manifest's project`,
      );
      expect(plan.stdout).toMatch(/of these: 5 new/);
      expect(plan.stdout).toContain(`not paid for again: gwrun plan --db ${ours} ${copied}`);
      // With that store, what it made is fetched again (its files are in the first project), not paid.
      const against = await scope.gwrun(["plan", "--db", ours, copied]);
      expect(Number(/of these: (\d+) new/.exec(against.stdout)?.[1])).toBeLessThan(5);
      expect(against.stdout).not.toContain("elsewhere");
      // From the copy's own project there is no other store to name.
      const there = await scope.gwrun(["plan", "manifests/shop.yaml"], { cwd: other });
      expect(there.stdout).not.toContain("elsewhere");
    });
  });

  it("a copy under another mount-like prefix serves status, report and view from its own files, and leaves the first alone", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", SHOP);
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      const first = scope.project;
      const copy = scope.copy("mnt/nfs-share/team/project");
      const before = snapshot(first);
      const status = await scope.gwrun(["status", "--json"], { cwd: copy });
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).run.output_dir).toBe(path.join(copy, "data/outputs/shop"));
      const report = await scope.gwrun(["report", "1"], { cwd: copy });
      expect(report.code).toBe(0);
      expect(existsSync(path.join(copy, "data/outputs/shop/run-1.html"))).toBe(true);
      const view = await startView(copy);
      try {
        const grid = (
          (await (await fetch(`${view.url}/api/runs/1/outputs`)).json()) as {
            outputs: { id: string }[];
          }
        ).outputs;
        expect(grid.length).toBeGreaterThanOrEqual(4);
        // Serve the copy's own file: with the first project's gone, it is still there.
        rmSync(path.join(first, "data/outputs"), { recursive: true });
        const file = await fetch(`${view.url}/files/${grid[0]?.id}/file`);
        expect(file.status).toBe(200);
        // Read to its end: a body left unread holds its connection open past the test.
        await file.arrayBuffer();
      } finally {
        await view.stop();
      }
      const after = snapshot(first);
      for (const [file, mtime] of after) expect(before.get(file)).toBe(mtime);
      expect([...after.keys()].filter((file) => !before.has(file))).toEqual([]);
    });
  });

  it.each<StoreKind>([
    "sqlite",
    "postgres",
  ])("%s: a record kept with absolute paths is made relative once; the moved project finds its files", async (kind) => {
    await withProject(kind, async (scope) => {
      const manifest = scope.write("shop.yaml", SHOP);
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      // As gwrun wrote it before: absolute paths, no project folder.
      const root = `${scope.project}/`;
      await scope.sql(
        "UPDATE runs SET project_dir = NULL, manifest_path = $1 || manifest_path, output_dir = $1 || output_dir",
        [root],
      );
      for (const column of ["path", "thumbnail", "poster"])
        await scope.sql(
          `UPDATE outputs SET ${column} = $1 || ${column} WHERE ${column} IS NOT NULL`,
          [root],
        );
      const paid = scope.sim.counters();
      scope.move("after-the-move/project");
      const plan = await scope.gwrun(["plan", manifest]);
      expect(plan.stdout).toMatch(/of these: 0 new \(cost 0\.00\), 5 done/);
      const runs = await scope.sql("SELECT manifest_path, output_dir, project_dir FROM runs");
      expect(runs).toEqual([
        {
          manifest_path: "manifests/shop.yaml",
          output_dir: "data/outputs/shop",
          project_dir: root.slice(0, -1),
        },
      ]);
      const files = await scope.sql("SELECT path FROM outputs ORDER BY path");
      for (const { path: file } of files) expect(String(file)).toMatch(/^data\/outputs\/shop\//);
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      expect(scope.sim.counters().submits.received).toBe(paid.submits.received);
      expect(scope.sim.counters().downloads.served).toBe(paid.downloads.served);
    });
  });

  it("report does not make a folder outside the project because the record names one", async () => {
    await withProject("sqlite", async (scope) => {
      const outside = path.join(path.dirname(scope.project), "shared-out");
      const manifest = scope.write("shop.yaml", shopManifest({ dir: outside }));
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      rmSync(outside, { recursive: true });
      const report = await scope.gwrun(["report", "1"]);
      expect(report.code).toBe(2);
      expect(report.stderr).toContain(
        `run 1's output folder ${outside} lies outside this project and is not here: nothing was written`,
      );
      expect(existsSync(outside)).toBe(false);
    });
  });

  it("plan and run name a file that is genuinely gone, and what they do about it", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", SHOP);
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      rmSync(path.join(scope.project, "data/outputs/shop/hero/hero-r1.png"));
      const plan = await scope.gwrun(["plan", manifest]);
      expect(plan.stdout).toContain(
        "missing: hero-r1: data/outputs/shop/hero/hero-r1.png not on disk as recorded; its links work: downloaded again",
      );
      const run = await scope.gwrun(["run", manifest]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "hero-r1: data/outputs/shop/hero/hero-r1.png is not on disk as recorded; its links still work: downloading again",
      );
      expect(run.stderr).toContain("1 output of earlier runs missing on disk: 1 fetched again");
      expect(existsSync(path.join(scope.project, "data/outputs/shop/hero/hero-r1.png"))).toBe(true);
    });
  });
});
