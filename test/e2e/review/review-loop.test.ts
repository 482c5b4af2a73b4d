import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fastSettings, filesBelow, withRun } from "../../helpers/run.js";
import { CAPTIONED_SHOTS } from "../../helpers/run-manifests.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";
import { readResults } from "../postprocess/review.js";

/** Three pictures of a model that takes a seed, and one of a model that does not. */
const JOBS = `name: review
jobs:
  - { id: hero, model: acme2.7-image-pro, prompt: "a mug on oak", repeat: 3 }
  - { id: plain, model: acme-image-2, prompt: "a plain mug", size: "1:1", resolution: 1k }
`;

describe.each(STORE_KINDS)("the review loop without a browser (%s)", (kind) => {
  it("stores decisions, shows them in results.jsonl, the gallery and status; retry --rejected makes new takes; export --approved copies the approved", async () => {
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write("review.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
        expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
        const tasks = await scope.tasks();
        expect(tasks).toHaveLength(4);
        const [first, second, third, plain] = tasks as [
          (typeof tasks)[0],
          (typeof tasks)[0],
          (typeof tasks)[0],
          (typeof tasks)[0],
        ];

        const store = await scope.open();
        try {
          const review = (key: string, decision: "approved" | "rejected" | null, note?: string) =>
            store.recordReview({ key, index: 0, decision, note: note ?? null }, 1000);
          expect(await review(first.key, "approved")).toBe(true);
          expect(await review(second.key, "rejected", "handle cut off")).toBe(true);
          expect(await review(plain.key, "rejected", 'too dark, "flat"')).toBe(true);
          expect(await review(third.key, "approved")).toBe(true);
          // Deciding again replaces; clearing removes; an output not on disk is refused.
          expect(await review(third.key, null)).toBe(true);
          expect(await review("f".repeat(64), "approved")).toBe(false);
          const reviews = await store.reviewsOf({ run: 1 });
          expect(reviews.map((r) => [r.job_key, r.decision, r.note])).toEqual([
            [first.key, "approved", null],
            [second.key, "rejected", "handle cut off"],
            [plain.key, "rejected", 'too dark, "flat"'],
          ]);
        } finally {
          await store.close();
        }

        expect((await scope.gwrun(["report"]).done).code).toBe(0);
        const records = readResults(scope.outputDir);
        expect(records.find((r) => r.key === second.key)?.review).toEqual({
          decision: "rejected",
          note: "handle cut off",
        });
        expect(records.find((r) => r.key === third.key)?.review).toBeNull();
        // Outputs are counted from 1 everywhere: results.jsonl, the sidecars and status.
        expect(records.find((r) => r.key === second.key)?.output).toBe(1);
        const sidecar = `${second.outputs[0]?.path}.json`;
        expect(JSON.parse(readFileSync(sidecar, "utf8")).output).toBe(1);
        const gallery = readFileSync(path.join(scope.outputDir, "index.html"), "utf8");
        expect(gallery).toContain('<span class="badge rejected">rejected</span>');
        expect(gallery).toContain('<b data-count="approved">1</b>');

        const status = await scope.gwrun(["status"]).done;
        expect(status.stdout).toContain("reviews: 1 approved, 2 rejected");
        expect(status.stdout).toContain("hero-r2 output 1: handle cut off");

        const before = scope.sim.counters().submits.accepted;
        const retry = await scope.gwrun(["retry", "--rejected"]).done;
        expect(retry.code, retry.stderr).toBe(0);
        expect(scope.sim.counters().submits.accepted - before).toBe(2);
        const after = await scope.tasks();
        const takes = after.filter((task) => task.take === 2);
        expect(takes.map((task) => [task.label, task.state]).sort()).toEqual([
          ["hero-r2-t2", "done"],
          ["plain-t2", "done"],
        ]);
        const heroTake = takes.find((task) => task.job_id === "hero");
        const seed = JSON.parse(heroTake?.request ?? "{}").seed;
        expect(Number.isInteger(seed)).toBe(true);
        expect(JSON.parse(second.request).seed).toBeUndefined();
        // The model without a seed is asked again as it was.
        expect(JSON.parse(takes.find((t) => t.job_id === "plain")?.request ?? "")).toEqual(
          JSON.parse(plain.request),
        );
        // The rejected files stay beside the new takes.
        for (const task of [second, plain, ...takes])
          expect(existsSync(task.outputs[0]?.path ?? "")).toBe(true);
        // Asked again, nothing more is made: the latest takes are not rejected.
        const again = await scope.gwrun(["retry", "--rejected"]).done;
        expect(again.code).toBe(0);
        expect(scope.sim.counters().submits.accepted - before).toBe(2);

        const delivery = path.join(scope.dir, "delivery");
        const exported = await scope.gwrun(["export", "--approved", delivery]).done;
        expect(exported.code, exported.stderr).toBe(0);
        const copied = readdirSync(delivery, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => path.relative(delivery, path.join(entry.parentPath, entry.name)))
          .sort();
        const approvedFile = path.relative(scope.outputDir, first.outputs[0]?.path ?? "");
        // Beside the copy, its record and its provenance (XMP), the original's bytes untouched.
        expect(copied).toEqual(
          [approvedFile, `${approvedFile}.json`, `${approvedFile}.xmp`, "review.csv"].sort(),
        );
        const csv = readFileSync(path.join(delivery, "review.csv"), "utf8").trim().split("\n");
        expect(csv[0]).toBe(
          "file,exported,job,label,output,take,repeat,vars,decision,note,sha256,judge,judge_reason,selected,reviewer",
        );
        expect(csv).toHaveLength(7);
        expect(csv.find((line) => line.includes(",plain,plain,")) ?? "").toMatch(
          /^,no,plain,plain,1,1,0,\{\},rejected,"too dark, ""flat""",[0-9a-f]{64},,,,$/,
        );
        expect(csv.filter((line) => line.includes(",yes,"))).toEqual([
          expect.stringMatching(new RegExp(`^${approvedFile},yes,hero,`)),
        ]);
      },
      await runStoreOf(kind),
    );
  });
});

describe("export --approved", () => {
  it("review.csv marks what the export holds, with paths only for files in it, keeps formulas as text, and an exported caption has its sidecar", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "captioned.yaml",
        `${fastSettings(scope.outputDir)}${CAPTIONED_SHOTS}`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const tasks = await scope.tasks();
      const shots = tasks.filter((task) => task.job_id === "shots");
      const captions = tasks.filter((task) => task.job_id === "captions");
      expect([shots.length, captions.length]).toEqual([2, 2]);
      expect(shots.map((shot) => shot.key)).toContain(captions[0]?.upstream_key);
      const store = await scope.open();
      try {
        const decide = (
          key: string | undefined,
          decision: "approved" | "rejected",
          note: string | null,
        ) => store.recordReview({ key: key ?? "", index: 0, decision, note }, 1000);
        expect(await decide(shots[0]?.key, "approved", '=HYPERLINK("http://x")')).toBe(true);
        expect(await decide(shots[1]?.key, "rejected", "-flat")).toBe(true);
        expect(await decide(captions[0]?.key, "approved", null)).toBe(true);
      } finally {
        await store.close();
      }
      const delivery = path.join(scope.dir, "delivery");
      const exported = await scope.gwrun(["export", "--approved", delivery]).done;
      expect(exported.code, exported.stderr).toBe(0);
      const inExport = (file: string | null | undefined) =>
        path
          .relative(scope.outputDir, file ?? "")
          .split(path.sep)
          .join("/");
      const shot = inExport(shots[0]?.outputs[0]?.path);
      const caption = inExport(captions[0]?.outputs[0]?.path);
      expect(filesBelow(delivery).sort()).toEqual(
        [shot, `${shot}.json`, `${shot}.xmp`, caption, `${caption}.json`, "review.csv"].sort(),
      );
      const sidecar = JSON.parse(readFileSync(path.join(delivery, `${caption}.json`), "utf8"));
      expect(sidecar).toMatchObject({
        job: "captions",
        key: captions[0]?.key,
        output: 1,
        upstream: captions[0]?.upstream_key,
        sha256: captions[0]?.outputs[0]?.sha256,
        content_type: "text/plain",
      });
      const rows = readFileSync(path.join(delivery, "review.csv"), "utf8").trim().split("\n");
      const row = (label: string | undefined) =>
        rows
          .find((line) => line.includes(`,${label},`))
          ?.split(",")
          .slice(0, 2);
      expect(rows).toHaveLength(5);
      expect(row(shots[0]?.label)).toEqual([shot, "yes"]);
      expect(row(captions[0]?.label)).toEqual([caption, "yes"]);
      expect(row(shots[1]?.label)).toEqual(["", "no"]);
      expect(row(captions[1]?.label)).toEqual(["", "no"]);
      // A note a spreadsheet would run is kept as text.
      expect(rows.join("\n")).toContain(',approved,"\'=HYPERLINK(""http://x"")",');
      expect(rows.join("\n")).toContain(",rejected,'-flat,");
    });
  });
});

describe("retry --rejected against the simulator", () => {
  it("the new take of a model that takes a seed is a different picture (another sha256)", async () => {
    await withRun({ mediaVariants: undefined }, async (scope) => {
      const manifest = scope.write(
        "hero.yaml",
        `${fastSettings(scope.outputDir)}name: hero\njobs:\n  - { id: hero, model: acme2.7-image-pro, prompt: "a mug on oak" }\n`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const [first] = await scope.tasks();
      const store = await scope.open();
      try {
        const review = { key: first?.key ?? "", index: 0, decision: "rejected" as const };
        expect(await store.recordReview({ ...review, note: "too dark" }, 1000)).toBe(true);
      } finally {
        await store.close();
      }
      const retry = await scope.gwrun(["retry", "--rejected"]).done;
      expect(retry.code, retry.stderr).toBe(0);
      const take = (await scope.tasks()).find((task) => task.take === 2);
      expect(take?.state).toBe("done");
      const [before, after] = [first?.outputs[0], take?.outputs[0]];
      expect(after?.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(after?.sha256).not.toBe(before?.sha256);
      expect(readFileSync(after?.path ?? "")).not.toEqual(readFileSync(before?.path ?? ""));
    });
  });
});
