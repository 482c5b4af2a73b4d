import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { csvField, placeInDelivery } from "../../../src/postprocess/export.js";
import { type ProjectScope, shopManifest, startView, withProject } from "../../helpers/project.js";

const shop = (dir: string) => shopManifest({ dir, clips: false });

/** Approves every output of run `run`, with `note`. */
async function approveAll(scope: ProjectScope, run: number, note: string | null = null) {
  await scope.sql(
    `INSERT INTO reviews (job_key, idx, decision, note, decided_at)
     SELECT outputs.job_key, outputs.idx, 'approved', $1, 1 FROM outputs
     JOIN run_jobs ON run_jobs.key = outputs.job_key WHERE run_jobs.run_id = $2`,
    [note, run],
  );
}

/** Every file below `dir`, relative to it. */
function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/** A run's files as recorded before outputs were delivered into later folders. */
async function forgetDeliveries(scope: ProjectScope): Promise<void> {
  await scope.sql("DELETE FROM output_copies");
}

describe("export stays in its folder, and takes only what the record says", () => {
  it("a {date} folder run on two dates exports run 2 into its own delivery folder only", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", shop("data/outputs/{name}/{date}"));
      for (const at of ["2026-11-26T10:00:00Z", "2026-11-27T10:00:00Z"])
        expect((await scope.gwrun(["run", manifest, "--at", at])).code).toBe(0);
      await forgetDeliveries(scope);
      await approveAll(scope, 2);
      const delivery = path.join(scope.project, "delivery");
      const result = await scope.gwrun(["export", "2", "--approved", "delivery/2026-11-26"]);
      expect(result.code, result.stderr).toBe(0);
      expect(filesIn(delivery)).toEqual([
        "2026-11-26/hero/hero-r1.png",
        "2026-11-26/hero/hero-r1.png.json",
        "2026-11-26/hero/hero-r1.png.xmp",
        "2026-11-26/hero/hero-r2.png",
        "2026-11-26/hero/hero-r2.png.json",
        "2026-11-26/hero/hero-r2.png.xmp",
        "2026-11-26/review.csv",
      ]);
    });
  });

  it("after an edited output.dir, files taken over from the old folder go under their job id, never above", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shop.yaml", shop("out/a"));
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      writeFileSync(path.join(scope.project, manifest), shop("deep/x/y/out/b"));
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      await forgetDeliveries(scope);
      await approveAll(scope, 2);
      const before = filesIn(scope.project).filter((file) => !file.startsWith("data/"));
      const result = await scope.gwrun(["export", "2", "--approved", "handover"]);
      expect(result.code, result.stderr).toBe(0);
      expect(filesIn(path.join(scope.project, "handover"))).toContain("hero/hero-r1.png");
      const after = filesIn(scope.project).filter((file) => !file.startsWith("data/"));
      expect(
        after.filter((file) => !before.includes(file)).every((f) => f.startsWith("handover/")),
      ).toBe(true);
    });
  });

  it("never overwrites a file it did not write without --force, and checks each file's hash first", async () => {
    await withProject("sqlite", async (scope) => {
      expect((await scope.gwrun(["run", scope.write("shop.yaml", shop("out"))])).code).toBe(0);
      await approveAll(scope, 1);
      const target = path.join(scope.project, "handover/hero/hero-r1.png");
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, "someone else's file");
      const refused = await scope.gwrun(["export", "--approved", "handover"]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `not exported: hero-r1 output 1: ${target} is there already and was not written by this export (--force replaces it)`,
      );
      expect(readFileSync(target, "utf8")).toBe("someone else's file");
      const forced = await scope.gwrun(["export", "--approved", "handover", "--force"]);
      expect(forced.code).toBe(0);
      expect(readFileSync(target)).toEqual(
        readFileSync(path.join(scope.project, "out/hero/hero-r1.png")),
      );
      // Run again into the same folder: the same bytes are there, nothing to replace.
      expect((await scope.gwrun(["export", "--approved", "handover"])).code).toBe(0);
      // A file changed on disk since it was recorded is not delivered.
      appendFileSync(path.join(scope.project, "out/hero/hero-r2.png"), "tampered");
      const changed = await scope.gwrun(["export", "--approved", "fresh"]);
      expect(changed.code).toBe(1);
      expect(changed.stderr).toMatch(
        /hero-r2 output 1: .*hero-r2\.png no longer holds the bytes recorded for it/,
      );
      expect(existsSync(path.join(scope.project, "fresh/hero/hero-r2.png"))).toBe(false);
    });
  });

  it("a link placed in the output folder is neither served by the viewer nor exported", async () => {
    await withProject("sqlite", async (scope) => {
      expect((await scope.gwrun(["run", scope.write("shop.yaml", shop("out"))])).code).toBe(0);
      await approveAll(scope, 1);
      const secret = path.join(path.dirname(scope.project), "secret.txt");
      writeFileSync(secret, "the viewer's user's secret");
      const picture = path.join(scope.project, "out/hero/hero-r1.png");
      rmSync(picture);
      symlinkSync(secret, picture);
      // A linked folder leads out too.
      const elsewhere = path.join(path.dirname(scope.project), "elsewhere");
      renameSync(path.join(scope.project, "out/.thumbs"), elsewhere);
      symlinkSync(elsewhere, path.join(scope.project, "out/.thumbs"));
      const [key] = (await scope.sql("SELECT key FROM jobs WHERE label = 'hero-r1'")).map((row) =>
        String(row.key),
      );
      const view = await startView(scope.project);
      try {
        expect((await fetch(`${view.url}/files/${key}/0/file`)).status).toBe(404);
        expect((await fetch(`${view.url}/files/${key}/0/thumb`)).status).toBe(404);
      } finally {
        await view.stop();
      }
      const exported = await scope.gwrun(["export", "--approved", "handover"]);
      expect(exported.code).toBe(1);
      expect(exported.stderr).toContain(
        `not exported: hero-r1 output 1: refused: ${picture} is a link, not the file gwrun recorded there`,
      );
      expect(existsSync(path.join(scope.project, "handover/hero/hero-r1.png"))).toBe(false);
      expect(existsSync(path.join(scope.project, "handover/hero/hero-r2.png"))).toBe(true);
    });
  });

  it("a review note a spreadsheet would run is written as text in review.csv", async () => {
    await withProject("sqlite", async (scope) => {
      expect((await scope.gwrun(["run", scope.write("shop.yaml", shop("out"))])).code).toBe(0);
      await approveAll(scope, 1, '=HYPERLINK("http://evil.example","click")');
      expect((await scope.gwrun(["export", "--approved", "handover"])).code).toBe(0);
      const csv = readFileSync(path.join(scope.project, "handover/review.csv"), "utf8");
      expect(csv).toContain(`"'=HYPERLINK(""http://evil.example"",""click"")"`);
      expect(csv).not.toMatch(/(^|,)=HYPERLINK/m);
    });
  });

  it("every cell a spreadsheet reads as a formula is neutralised", () => {
    for (const cell of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
      expect(csvField(cell).replace(/^"/, "").startsWith("'")).toBe(true);
    expect(csvField("plain")).toBe("plain");
  });

  it("an output that lies outside the run's folder is placed under its job id", () => {
    expect(placeInDelivery("/p/out/b", "hero", "/p/out/a/hero/hero.png")).toBe("hero/hero.png");
    expect(placeInDelivery("/p/out/b", "hero", "/p/out/b/hero/hero-r1.png")).toBe(
      path.join("hero", "hero-r1.png"),
    );
  });
});
