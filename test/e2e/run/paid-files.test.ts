import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  type ProjectScope,
  type StoreKind,
  shopManifest,
  startView,
  withProject,
} from "../../helpers/project.js";

const shop = (name: string, prompt = "a mug") => shopManifest({ name, prompt });

interface Row {
  label: string;
  file: string;
  sha256: string;
  submitted_at: string | null;
  completed_at: string | null;
  downloaded_at: string | null;
}

const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function rows(folder: string, name = "results.jsonl"): Row[] {
  return readFileSync(path.join(folder, name), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Row);
}

/** Every record of the folder names a file inside it holding the bytes it says, sidecar alike. */
function expectTrueRecord(folder: string, name = "results.jsonl"): Row[] {
  const found = rows(folder, name);
  for (const row of found) {
    expect(row.file.startsWith("..")).toBe(false);
    const file = path.join(folder, row.file);
    expect(sha(file)).toBe(row.sha256);
    if (!row.file.endsWith(".txt"))
      expect(JSON.parse(readFileSync(`${file}.json`, "utf8")).sha256).toBe(row.sha256);
  }
  return found;
}

const output = (scope: ProjectScope, name: string) =>
  path.join(scope.project, "data/outputs", name);

describe.each<StoreKind>(["sqlite", "postgres"])("paid files on %s", (kind) => {
  it(`${kind}: an edited prompt gets files of its own; the paid ones stay, and every record names its bytes`, async () => {
    await withProject(kind, async (scope) => {
      const manifest = scope.write("shop.yaml", shop("shop"));
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      const folder = output(scope, "shop");
      const paid = sha(path.join(folder, "hero/hero-r1.png"));
      writeFileSync(path.join(scope.project, manifest), shop("shop", "a blue mug"));
      const plan = await scope.gwrun(["plan", manifest]);
      expect(plan.stdout).toContain("supersedes 4 outputs (hero 2, clip 2)");
      const run = await scope.gwrun(["run", manifest]);
      expect(run.code).toBe(0);
      expect(sha(path.join(folder, "hero/hero-r1.png"))).toBe(paid);
      expect(existsSync(path.join(folder, "hero/hero-r1-v2.png"))).toBe(true);
      expect(existsSync(path.join(folder, "clip/clip-of-hero-r1-v2.mp4"))).toBe(true);
      const current = expectTrueRecord(folder);
      expect(current.map((row) => row.file).sort()).toEqual([
        "caption/caption.txt",
        "clip/clip-of-hero-r1-v2.mp4",
        "clip/clip-of-hero-r2-v2.mp4",
        "hero/hero-r1-v2.png",
        "hero/hero-r2-v2.png",
      ]);
      // The first run's own record still names the first files, with their bytes.
      expect((await scope.gwrun(["report", "1"])).code).toBe(0);
      const first = expectTrueRecord(folder, "run-1.jsonl");
      expect(first.find((row) => row.label === "hero-r1")?.sha256).toBe(paid);
      expect((await scope.gwrun(["plan", manifest])).stdout).toMatch(/of these: 0 new/);
    });
  });

  it(`${kind}: a rerun pays 0; status, runs, the gallery and the viewer add up to what was paid`, async () => {
    await withProject(kind, async (scope) => {
      const manifest = scope.write("shop.yaml", shop("shop"));
      const first = await scope.gwrun(["run", manifest]);
      const total = Number(/; paid ([\d.]+)[;,]/.exec(first.stderr)?.[1]);
      expect(total).toBeGreaterThan(0);
      const again = await scope.gwrun(["run", manifest]);
      expect(again.stderr).toContain(`paid 0 this run (${total} in all)`);
      const status = JSON.parse((await scope.gwrun(["status", "--json"])).stdout);
      expect(status).toMatchObject({ spent: 0, spent_in_all: total });
      expect((await scope.gwrun(["status"])).stdout).toContain(`paid 0 this run (${total} in all)`);
      const runs = JSON.parse((await scope.gwrun(["runs", "--json"])).stdout) as {
        spent: number;
      }[];
      expect(runs.map((run) => run.spent)).toEqual([0, total]);
      const gallery = readFileSync(path.join(output(scope, "shop"), "index.html"), "utf8");
      expect(gallery).toContain('run 2 paid <b data-count="paid">0</b>');
      expect(gallery).toContain(`<b data-count="spent">${total}</b> in all`);
      const view = await startView(
        scope.project,
        scope.store === undefined ? {} : { GWRUN_STORE: scope.store },
      );
      try {
        const items = (await (await fetch(`${view.url}/api/runs`)).json()) as { spent: number }[];
        expect(items.map((item) => item.spent)).toEqual([0, total]);
        const progress = await (await fetch(`${view.url}/api/runs/2/progress`)).json();
        expect(progress).toMatchObject({ paid: 0, spent: total });
      } finally {
        await view.stop();
      }
    });
  });

  it(`${kind}: a copied manifest under a new name delivers every file into its own folder, unpaid`, async () => {
    await withProject(kind, async (scope) => {
      expect((await scope.gwrun(["run", scope.write("shop.yaml", shop("shop"))])).code).toBe(0);
      const paid = scope.sim.counters();
      const copy = scope.write("shop-b.yaml", shop("shop-b"));
      const plan = await scope.gwrun(["plan", copy]);
      expect(plan.stdout).toMatch(/of these: 0 new .* 5 done/);
      expect(plan.stdout).toContain("delivers 5 done tasks (hero 2, clip 2, caption 1)");
      const run = await scope.gwrun(["run", copy]);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        "5 outputs made before into another folder delivered into data/outputs/shop-b (linked or copied; not paid again)",
      );
      expect(scope.sim.counters().submits.received).toBe(paid.submits.received);
      expect(scope.sim.counters().downloads.served).toBe(paid.downloads.served);
      const delivered = expectTrueRecord(output(scope, "shop-b"));
      expect(delivered).toHaveLength(5);
      const original = path.join(output(scope, "shop"), "hero/hero-r1.png");
      const copied = path.join(output(scope, "shop-b"), "hero/hero-r1.png");
      // One file system: a hard link, no second copy of the bytes.
      expect(statSync(copied).ino).toBe(statSync(original).ino);
      // Run again: already delivered, nothing to do.
      const again = await scope.gwrun(["run", copy]);
      expect(again.stderr).not.toContain("delivered into");
    });
  });

  it(`${kind}: every sidecar and results.jsonl row carries its times in ISO 8601, also after a resume`, async () => {
    await withProject(kind, async (scope) => {
      expect((await scope.gwrun(["run", scope.write("shop.yaml", shop("shop"))])).code).toBe(0);
      const folder = output(scope, "shop");
      // As a process killed between the downloads and the checks leaves it: resumed.
      await scope.sql("UPDATE jobs SET state = 'downloaded', done_at = NULL WHERE lane <> 'text'");
      await scope.sql("UPDATE outputs SET check_state = NULL, checks = NULL");
      for (const row of rows(folder))
        if (!row.file.endsWith(".txt")) rmSync(path.join(folder, `${row.file}.json`));
      expect((await scope.gwrun(["resume"])).code).toBe(0);
      for (const row of rows(folder)) {
        for (const time of [row.submitted_at, row.completed_at, row.downloaded_at])
          expect(time).toMatch(ISO);
        if (row.file.endsWith(".txt")) continue;
        const sidecar = JSON.parse(readFileSync(path.join(folder, `${row.file}.json`), "utf8"));
        expect(sidecar).toMatchObject({
          submitted_at: row.submitted_at,
          completed_at: row.completed_at,
          downloaded_at: row.downloaded_at,
        });
      }
    });
  });
});
