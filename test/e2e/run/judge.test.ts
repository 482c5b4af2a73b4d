import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/index.js";
import { gwrunHere, ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/**
 * Through the command line: the demo manifest whose judge rejects pictures that are
 * made again, a judge written wrong, and people overruling the judge.
 */

interface Line {
  label: string;
  take: number;
  file: string;
  judge: { verdict: string; reason: string | null } | null;
  review: { decision: string } | null;
  decision: { value: string; by: string } | null;
}

function results(dir: string): Line[] {
  const text = readFileSync(path.join(dir, "data/outputs/judged/results.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}

async function demo() {
  const dir = tempDir();
  copyFileSync(path.join(ROOT, "manifests/judged.yaml"), path.join(dir, "judged.yaml"));
  const gwrun = (args: readonly string[]) => gwrunHere(args, { cwd: dir });
  const ran = await gwrun(["run", "judged.yaml"]);
  return { dir, gwrun, ran };
}

describe("a judge, end to end", () => {
  it("the demo manifest runs offline: the simulator's judge rejects some pictures, they are made again, every output ends judged, and the summary counts the new takes", async () => {
    const { dir, ran } = await demo();
    expect(ran.code).toBe(0);
    const summary =
      /judge: (\d+) outputs judged: (\d+) passed, (\d+) rejected, 0 undecided; (\d+) new takes? made/.exec(
        ran.stderr,
      );
    expect(summary).not.toBeNull();
    const [, judged, passed, rejected, retakes] = (summary ?? []).map(Number);
    expect(rejected).toBeGreaterThan(0);
    expect(retakes).toBe(rejected);
    expect(passed).toBe(8);
    const lines = results(dir);
    expect(lines).toHaveLength(judged as number);
    expect(lines.every((line) => line.judge !== null)).toBe(true);
    // The rejected takes stay, on disk and in the record, beside the takes that passed.
    const noes = lines.filter((line) => line.judge?.verdict === "fail");
    expect(noes.length).toBe(rejected);
    for (const line of noes) {
      expect(readdirSync(path.join(dir, "data/outputs/judged", path.dirname(line.file)))).toContain(
        path.basename(line.file),
      );
      expect(line.decision).toEqual({ value: "rejected", by: "judge" });
      expect(
        lines.some(
          (other) =>
            other.take === line.take + 1 &&
            other.label.startsWith(line.label.replace(/-t\d+$/, "")),
        ),
      ).toBe(true);
    }
  });

  it("a person's decision wins over the judge's: results.jsonl and export --approved follow the person, and judge-report counts where they disagreed", async () => {
    const { dir, gwrun } = await demo();
    const lines = results(dir);
    const rejected = lines.find((line) => line.judge?.verdict === "fail");
    const passed = lines.find((line) => line.judge?.verdict === "pass");
    const other = lines.find((line) => line.judge?.verdict === "pass" && line !== passed);
    const store = openStore(path.join(dir, "data/gwrun.db"));
    try {
      const keyOf = async (label: string) =>
        (await store.tasksOf(1)).find((task) => task.label === label)?.key ?? "";
      const now = Date.now();
      await store.recordReview(
        {
          key: await keyOf(rejected?.label ?? ""),
          index: 0,
          decision: "approved",
          note: "the cut is fine",
        },
        now,
      );
      await store.recordReview(
        { key: await keyOf(passed?.label ?? ""), index: 0, decision: "rejected", note: "glare" },
        now,
      );
      await store.recordReview(
        { key: await keyOf(other?.label ?? ""), index: 0, decision: "approved", note: null },
        now,
      );
    } finally {
      await store.close();
    }
    const report = await gwrun(["judge-report", "--json"]);
    expect(report.code).toBe(0);
    expect(JSON.parse(report.stdout)).toMatchObject({
      reviewed: 3,
      agreed: 1,
      disagreements: { passedRejected: 1, rejectedApproved: 1 },
    });
    const text = await gwrun(["judge-report"]);
    expect(text.stdout).toMatch(
      /agreement with people: 33% \(1 of 3 outputs both judged and reviewed\)/,
    );
    expect(text.stdout).toContain(`${rejected?.label} output 1: judge rejected`);
    expect(text.stdout).toContain("person approved: the cut is fine");

    expect((await gwrun(["report"])).code).toBe(0);
    const after = results(dir);
    const overruled = after.find((line) => line.label === rejected?.label);
    expect(overruled?.judge?.verdict).toBe("fail");
    expect(overruled?.decision).toEqual({ value: "approved", by: "person" });
    expect(after.find((line) => line.label === passed?.label)?.decision).toEqual({
      value: "rejected",
      by: "person",
    });
    expect(readFileSync(path.join(dir, "data/outputs/judged/index.html"), "utf8")).toContain(
      "judge suggests: no (overruled)",
    );

    const out = path.join(dir, "approved");
    expect((await gwrun(["export", "--approved", out])).code).toBe(0);
    const exported = readdirSync(out, { recursive: true }).map(String);
    expect(exported.some((file) => file.endsWith(path.basename(rejected?.file ?? "?")))).toBe(true);
    expect(exported.some((file) => file.endsWith(path.basename(passed?.file ?? "?")))).toBe(false);
    // review.csv keeps the judge's verdict beside the person's decision.
    const csv = readFileSync(path.join(out, "review.csv"), "utf8");
    expect(csv.split("\n")[0]).toMatch(
      /,decision,note,sha256,judge,judge_reason,selected,reviewer$/,
    );
    expect(csv).toMatch(
      new RegExp(`,${rejected?.label},1,.*,approved,the cut is fine,[0-9a-f]{64},fail,`),
    );
  });

  it("a judge written wrong is an error at its own text: chat carries no pictures, a picture model is no judge, a question reading what a task does not know", async () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, "bad.yaml"),
      `version: 1
gateway: { base_url: sim }
jobs:
  - id: shots
    model: acme-image-2
    prompt: a mug
    checks:
      judge: { model: acme-5, endpoint: chat, ask: "ok?", pass: { starts_with: "yes" } }
  - id: more
    model: acme-image-2
    prompt: a cup
    checks:
      judge: { model: acme-image-2, endpoint: responses, ask: "{{colour}}?", pass: { score_at_least: 7 } }
`,
    );
    const result = await gwrunHere(["validate", "bad.yaml"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.yaml:8:41 {2}error chat carries no pictures/);
    expect(result.stderr).toMatch(
      /bad\.yaml:13:23 {2}error acme-image-2 makes pictures: a judge is a text model/,
    );
    expect(result.stderr).toMatch(/bad\.yaml:13:63 {2}error the judge's ask reads \{\{colour\}\}/);
  });
});
