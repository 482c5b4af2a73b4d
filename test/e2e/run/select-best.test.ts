import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrunAsync, gwrunHere } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { viewUrl } from "../../helpers/view-url.js";

/** Through the command line: `select: { best: 1, by: judge }` picks one take of each group. */

const MANIFEST = `version: 1
name: best
gateway: { base_url: sim }
limits: { submit_rate: 20/s }
poll: { first_after: 15s, every: 4s, batch_size: 50 }
output: { dir: "data/outputs/{name}" }
jobs:
  - id: shots
    model: acme-image-2
    matrix: { product: [ceramic mug, teapot] }
    prompt: "A {{product}} on an oak table"
    repeat: 3
    select: { best: 1, by: judge }
    checks:
      judge:
        model: acme-5
        endpoint: responses
        ask: "How well does this picture show a {{product}}, whole?"
        pass: { score_at_least: 0 }
`;

interface Line {
  label: string;
  key: string;
  file: string;
  vars: Record<string, unknown>;
  repeat: number;
  judge: { score?: number } | null;
  selected?: boolean;
}

function results(dir: string): Line[] {
  const text = readFileSync(path.join(dir, "data/outputs/best/results.jsonl"), "utf8");
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}

function selectedLabels(lines: readonly Line[]): string[] {
  return lines.filter((line) => line.selected === true).map((line) => line.label);
}

/** Each row's `selected` column of the review.csv in `dir`, by label (its fourth column). */
function csvSelections(dir: string): Map<string, string | undefined> {
  const [header, ...rows] = readFileSync(path.join(dir, "review.csv"), "utf8").trim().split("\n");
  expect(header?.split(",").slice(-2)).toEqual(["selected", "reviewer"]);
  return new Map(rows.map((row) => [row.split(",")[3] ?? "", row.split(",").at(-2)]));
}

/** The lines of each product's group, in the order recorded. */
function groups(lines: readonly Line[]): Line[][] {
  const by = new Map<string, Line[]>();
  for (const line of lines) {
    const id = JSON.stringify(line.vars);
    by.set(id, [...(by.get(id) ?? []), line]);
  }
  return [...by.values()].map((group) => group.sort((a, b) => a.repeat - b.repeat));
}

/** The take a ranking by score selects: the highest, the first recorded on a tie. */
function best(group: readonly Line[]): Line | undefined {
  return group.reduce<Line | undefined>(
    (top, line) =>
      top === undefined || (line.judge?.score ?? -1) > (top.judge?.score ?? -1) ? line : top,
    undefined,
  );
}

describe("select: the best take of each group", () => {
  it("selects one take of each group of three by the judge's score, and export --selected delivers only the winners; a winner rejected in gwrun view hands the selection to the next best", async () => {
    const dir = tempDir({ "best.yaml": MANIFEST });
    const gwrun = (args: readonly string[]) => gwrunHere(args, { cwd: dir });
    const ran = await gwrun(["run", "best.yaml"]);
    expect(ran.code).toBe(0);
    const lines = results(dir);
    expect(lines).toHaveLength(6);
    const byGroup = groups(lines);
    expect(byGroup).toHaveLength(2);
    for (const group of byGroup) {
      expect(group).toHaveLength(3);
      expect(group.every((line) => typeof line.judge?.score === "number")).toBe(true);
      expect(group.filter((line) => line.selected === true)).toEqual([best(group)]);
      expect(group.filter((line) => line.selected === false)).toHaveLength(2);
    }

    const gallery = readFileSync(path.join(dir, "data/outputs/best/index.html"), "utf8");
    expect(gallery.match(/badge selected">selected · score/g)).toHaveLength(2);

    const out = path.join(dir, "delivery");
    const exported = await gwrun(["export", "--selected", out]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("2 selected outputs exported");
    const files = readdirSync(out, { recursive: true })
      .map(String)
      .filter((file) => file.endsWith(".png"));
    const winners = lines.filter((line) => line.selected === true);
    expect(files.sort()).toEqual(winners.map((line) => line.file).sort());
    // review.csv says, in its last column, which take of each group of three was selected.
    const marks = csvSelections(out);
    for (const group of byGroup) {
      const marked = group.map((line) => marks.get(line.label));
      expect(marked.filter((mark) => mark === "yes")).toHaveLength(1);
      expect(marked.filter((mark) => mark === "no")).toHaveLength(2);
      expect(marks.get(best(group)?.label ?? "")).toBe("yes");
    }

    // A person rejects the first group's winner: the next best of that group is selected.
    const [first] = byGroup;
    const winner = best(first ?? []);
    const rest = (first ?? []).filter((line) => line !== winner);
    const next = best(rest);
    const view = gwrunAsync(["view"], { cwd: dir });
    try {
      const url = new URL(await viewUrl(view.child));
      const answer = await fetch(new URL("/api/reviews", url), {
        method: "POST",
        headers: { "x-gwrun-token": url.searchParams.get("token") ?? "" },
        body: JSON.stringify({ key: winner?.key, index: 0, decision: "rejected", note: "glare" }),
      });
      expect(answer.status).toBe(200);
      // The viewer rewrites results.jsonl after a decision: the next best is selected there.
      await expect
        .poll(() => selectedLabels(results(dir)), { timeout: 10_000 })
        .toContain(next?.label);
      // The viewer's grid marks the winners as results.jsonl does.
      const grid = (await (await fetch(new URL("/api/runs/1/outputs", url))).json()) as {
        outputs: { label: string; selected?: boolean }[];
      };
      const marked = grid.outputs
        .filter((item) => item.selected === true)
        .map((item) => item.label);
      expect(marked.sort()).toEqual(selectedLabels(results(dir)).sort());
    } finally {
      view.child.kill("SIGINT");
    }
    expect((await view.done).code).toBe(0);
    const after = results(dir);
    const selectedNow = selectedLabels(after);
    expect(selectedNow).toContain(next?.label);
    expect(selectedNow).not.toContain(winner?.label);
    expect(selectedNow).toHaveLength(2);

    // export --approved delivers by decision, and its review.csv still marks the selection.
    const approved = await gwrun(["export", "--approved", path.join(dir, "approved")]);
    expect(approved.code).toBe(0);
    const approvedMarks = csvSelections(path.join(dir, "approved"));
    expect(approvedMarks.size).toBe(6);
    for (const line of after)
      expect(approvedMarks.get(line.label)).toBe(line.selected ? "yes" : "no");
  });

  it("refuses select without a judge asking for a score, and a best above the group's size", async () => {
    const manifest = MANIFEST.replace("best: 1", "best: 4").replace(
      "pass: { score_at_least: 0 }",
      'pass: { starts_with: "yes" }',
    );
    const dir = tempDir({ "best.yaml": manifest });
    const checked = await gwrunHere(["validate", "best.yaml"], { cwd: dir });
    expect(checked.code).toBe(2);
    expect(checked.stdout + checked.stderr).toContain("best: 4 would select them all");
    expect(checked.stdout + checked.stderr).toContain("use pass: { score_at_least: S }");
  });
});
