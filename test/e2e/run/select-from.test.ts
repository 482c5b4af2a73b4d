import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrunAsync, gwrunHere } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { viewUrl } from "../../helpers/view-url.js";

/**
 * Through the command line: `from: { job, selected: true }` makes dependants of the takes
 * `select:` picks only — counted so by `plan`, started once a group's takes are judged, and
 * made afresh for the next best when a person rejects a winner.
 */

const MANIFEST = `version: 1
name: best
gateway: { base_url: sim }
limits: { submit_rate: 20/s }
poll: { first_after: 20ms, every: 20ms, batch_size: 50 }
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
  - id: edits
    model: acme-imagine-1.0-edit-fast
    from: { job: shots, selected: true }
    prompt: "The same {{input.vars.product}}, on white"
    image_urls: ["{{input.url}}"]
`;

interface Line {
  job: string;
  key: string;
  vars: Record<string, unknown>;
  upstream?: string | null;
  selected?: boolean;
}

function results(dir: string): Line[] {
  return readFileSync(path.join(dir, "data/outputs/best/results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
}

interface PlanJson {
  groups: { job: string; tasks: number; status: Record<string, number> }[];
  totals: { tasks: number };
}

async function planOf(dir: string): Promise<PlanJson> {
  const plan = await gwrunHere(["plan", "best.yaml", "--json"], { cwd: dir });
  expect(plan.code, plan.stderr).toBe(0);
  return JSON.parse(plan.stdout) as PlanJson;
}

function edits(plan: PlanJson) {
  return plan.groups.find((group) => group.job === "edits");
}

describe("from: { job, selected: true }", () => {
  it("plans and makes one edit per group of three takes, of the selected take; rejecting a winner makes the next best's edit on the next run", async () => {
    const dir = tempDir({ "best.yaml": MANIFEST });
    const gwrun = (args: readonly string[]) => gwrunHere(args, { cwd: dir });

    const before = await planOf(dir);
    expect(edits(before)?.tasks).toBe(2);
    expect(before.totals.tasks).toBe(8);

    const ran = await gwrun(["run", "best.yaml"]);
    expect(ran.code, ran.stderr).toBe(0);
    const lines = results(dir);
    const winners = lines.filter((line) => line.job === "shots" && line.selected === true);
    expect(winners).toHaveLength(2);
    const made = lines.filter((line) => line.job === "edits");
    expect(made.map((line) => line.upstream).sort()).toEqual(
      winners.map((line) => line.key).sort(),
    );
    const after = await planOf(dir);
    expect(edits(after)?.status).toMatchObject({ new: 0, done: 2 });

    // A person rejects one winner: the next best of its group is selected, and its edit is new.
    const [rejected] = winners;
    const view = gwrunAsync(["view"], { cwd: dir });
    try {
      const url = new URL(await viewUrl(view.child));
      const answer = await fetch(new URL("/api/reviews", url), {
        method: "POST",
        headers: { "x-gwrun-token": url.searchParams.get("token") ?? "" },
        body: JSON.stringify({ key: rejected?.key, index: 0, decision: "rejected" }),
      });
      expect(answer.status).toBe(200);
    } finally {
      view.child.kill("SIGTERM");
      await view.done;
    }
    const replanned = await planOf(dir);
    expect(edits(replanned)?.status).toMatchObject({ new: 1, done: 1 });
    const again = await gwrun(["run", "best.yaml"]);
    expect(again.code, again.stderr).toBe(0);
    const now = results(dir);
    const next = now.find(
      (line) =>
        line.job === "shots" &&
        line.selected === true &&
        JSON.stringify(line.vars) === JSON.stringify(rejected?.vars),
    );
    expect(next?.key).not.toBe(rejected?.key);
    expect(now.filter((line) => line.job === "edits").map((line) => line.upstream)).toContain(
      next?.key,
    );
    expect((await planOf(dir)).groups.every((group) => group.status.new === 0)).toBe(true);
  });

  it("refuses selected: true when the job followed selects nothing, at the key", async () => {
    const text = MANIFEST.replace("    select: { best: 1, by: judge }\n", "");
    const dir = tempDir({ "best.yaml": text });
    const checked = await gwrunHere(["validate", "best.yaml"], { cwd: dir });
    expect(checked.code).not.toBe(0);
    const line = text.split("\n").findIndex((each) => each.includes("selected: true")) + 1;
    expect(checked.stderr).toMatch(new RegExp(`best\\.yaml:${line}:\\d+`));
    expect(checked.stderr).toContain("job shots's select: picks, and it has none");
  });
});
