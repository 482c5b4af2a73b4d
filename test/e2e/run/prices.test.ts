import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openPgStore, openStore, type Store } from "../../../src/store/index.js";
import { gwrunHere } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";

/**
 * Prices in a manifest, end to end against the built-in simulator (`base_url: sim`), which
 * charges by the manifest's table: what `plan` estimates is what `gwrun cost` reports paid.
 */

const PRICED = `version: 1
name: priced
gateway: { base_url: sim }
output: { thumbnails: false }
prices:
  acme-imagine-1.0-fast: 0.05
  acme-image-2: { by: resolution, 1k: 0.04, 2k: 0.08 }
  acme2.7-image: { per_image: 0.3 }
  acme-video-2.3-Fast: { per_second: 0.1 }
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a ceramic mug
    repeat: 2
  - id: hero
    model: acme-image-2
    prompt: a ceramic mug on oak
    matrix: { resolution: [1k, 2k] }
  - id: set
    model: acme2.7-image
    prompt: a ceramic mug, two views
    n: 2
  - id: teaser
    model: acme-video-2.3-Fast
    from: hero
    first_frame_image: "{{input.url}}"
    prompt: slow push in on the mug
    duration: 6
`;

const TEXT = `version: 1
name: captions
gateway: { base_url: sim }
prices:
  acme-5: { per_1k_input: 2, per_1k_output: 8 }
jobs:
  - id: cap
    endpoint: chat
    model: acme-5
    max_tokens: 300
    stream: false
    messages: [{ role: user, content: "One-line caption for a ceramic mug photo" }]
`;

interface Project {
  dir: string;
  gwrun(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  open(): Promise<Store>;
}

/** A project folder with `manifest.yaml`, its store a SQLite file or a PostgreSQL database. */
async function project(manifest: string, pgUrl?: string): Promise<Project> {
  const dir = tempDir();
  writeFileSync(path.join(dir, "manifest.yaml"), manifest);
  const env = {
    GWRUN_SIM_TIME_SCALE: "3600",
    ...(pgUrl === undefined ? {} : { GWRUN_STORE: pgUrl }),
  };
  return {
    dir,
    gwrun: (args) => gwrunHere(args, { cwd: dir, env }),
    open: async () =>
      pgUrl === undefined ? openStore(path.join(dir, "data/gwrun.db")) : openPgStore(pgUrl),
  };
}

async function planAndRun(scope: Project): Promise<{ planText: string; plan: PlanJson }> {
  const planned = await scope.gwrun(["plan", "manifest.yaml"]);
  expect(planned.stderr).toBe("");
  expect(planned.code).toBe(0);
  const json = await scope.gwrun(["plan", "manifest.yaml", "--json"]);
  const plan = JSON.parse(json.stdout) as PlanJson;
  const ran = await scope.gwrun(["run", "manifest.yaml"]);
  expect(ran.stderr).toMatch(/run 1 done after/);
  expect(ran.code).toBe(0);
  return { planText: planned.stdout, plan };
}

interface PlanJson {
  groups: { job: string; cost: number | null }[];
  totals: { cost: number; tasksWithUnknownCost: number };
}

interface CostJson {
  spent: number;
  estimate: number;
  groups: { key: string; spent: number; estimate: number; tasks: number }[];
}

async function costJson(scope: Project, args: readonly string[] = []): Promise<CostJson> {
  const result = await scope.gwrun(["cost", ...args, "--json"]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as CostJson;
}

describe.each([
  ["SQLite", false],
  ["PostgreSQL", true],
])("prices and cost reports (%s store)", (_name, postgres) => {
  const scopeOf = async (manifest: string) =>
    project(manifest, postgres ? await testDatabase({ schema: true }) : undefined);

  it("plan of a manifest pricing every model shows no unknown, and its cost is what gwrun cost --json reports after the run", async () => {
    const scope = await scopeOf(PRICED);
    const { planText, plan } = await planAndRun(scope);
    expect(planText).not.toMatch(/unknown/);
    // fast 2 × 0.05, hero 0.04 + 0.08, set 2 images × 0.30, teaser 2 clips × 6 s × 0.10.
    expect(plan.totals).toMatchObject({ cost: 2.02, tasksWithUnknownCost: 0 });
    expect(planText).toMatch(/estimated cost 2\.02\b/);

    const cost = await costJson(scope, ["1"]);
    expect(cost).toEqual({
      spent: plan.totals.cost,
      estimate: plan.totals.cost,
      atUnknownCost: 0,
      unpriced: 0,
      groups: plan.groups.map((group) => ({
        key: group.job,
        spent: group.cost,
        estimate: group.cost,
        atUnknownCost: 0,
        unpriced: 0,
        tasks: { fast: 2, hero: 2, set: 1, teaser: 2 }[group.job],
      })),
    });
    // The store's totals without a run, and by model.
    expect((await costJson(scope)).spent).toBe(2.02);
    const byModel = await costJson(scope, ["--by", "model"]);
    expect(byModel.groups.map((group) => [group.key, group.spent])).toEqual([
      ["acme-imagine-1.0-fast", 0.1],
      ["acme-image-2", 0.12],
      ["acme2.7-image", 0.6],
      ["acme-video-2.3-Fast", 1.2],
    ]);
    const text = await scope.gwrun(["cost", "--by", "family"]);
    expect(text.stdout).toMatch(/^cost of every run by family: paid 2\.02, estimated 2\.02\n/);
    expect(text.stdout).toMatch(/\n {2}video-1 +2 +1\.20 +1\.20\n/);
  });

  it("a text task priced per token is estimated in plan and costed from the usage the gateway reported", async () => {
    const scope = await scopeOf(TEXT);
    const { plan } = await planAndRun(scope);
    // 40 + 4 characters of text → 11 input tokens, 300 output at most: 0.022 + 2.4.
    expect(plan.totals).toMatchObject({ cost: 2.422, tasksWithUnknownCost: 0 });
    const store = await scope.open();
    let usage: { prompt_tokens: number; completion_tokens: number };
    try {
      const [answer] = await store.textAnswersOf(1);
      usage = JSON.parse(answer?.usage ?? "null");
    } finally {
      await store.close();
    }
    const paid = Math.round(usage.prompt_tokens * 2 + usage.completion_tokens * 8) / 1000;
    const cost = await costJson(scope, ["1"]);
    expect(cost.groups).toEqual([
      { key: "cap", spent: paid, estimate: 2.422, atUnknownCost: 0, unpriced: 0, tasks: 1 },
    ]);
    expect(paid).toBeLessThan(2.422);
    // The difference is shown beside the estimate: by cost, status and the run's results.
    const less = (2.422 - paid).toFixed(2);
    const text = await scope.gwrun(["cost", "1"]);
    expect(text.stdout).toContain(`paid ${paid.toFixed(2)}, estimated 2.42 (paid ${less} less)`);
    const status = await scope.gwrun(["status"]);
    expect(status.stdout).toContain(`, estimated 2.42 (paid ${less} less)`);
    const results = readFileSync(
      path.join(scope.dir, "data/outputs/captions/results.jsonl"),
      "utf8",
    );
    expect(JSON.parse(results.split("\n")[0] ?? "")).toMatchObject({
      label: "cap",
      cost: paid,
      estimated_cost: 2.422,
    });
  });
});

describe("max_cost with prices", () => {
  it("max_cost reserves each task at its manifest price, so a run stops before passing it", async () => {
    const scope = await project(`version: 1
name: budget
gateway: { base_url: sim }
limits: { max_cost: 2, max_in_flight: 5 }
prices: { acme-imagine-1.0-fast: 1 }
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a ceramic mug
    repeat: 3
`);
    const validated = await scope.gwrun(["validate", "manifest.yaml"]);
    // Priced, so max_cost protects every task: no warning that it cannot.
    expect(validated.stderr).not.toMatch(/unknown-price/);
    const ran = await scope.gwrun(["run", "manifest.yaml"]);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toMatch(/budget reached: max_cost 2/);
    expect((await costJson(scope)).spent).toBe(2);
  });
});

describe("a shared prices file", () => {
  it("gwrun validate points into the shared file, with its own lines shown", async () => {
    const scope = await project(`version: 1
prices: { file: team/prices.yaml }
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a mug
`);
    mkdirSync(path.join(scope.dir, "team"));
    writeFileSync(
      path.join(scope.dir, "team/prices.yaml"),
      "# team prices\nacme-imagine-1.0-fast: { per_imgae: 0.05 }\n",
    );
    const result = await scope.gwrun(["validate", "manifest.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'team/prices.yaml:2:26  error acme-imagine-1.0-fast: unknown price field (did you mean "per_image"?)  [unknown-field]\n    1 | # team prices\n  > 2 | acme-imagine-1.0-fast: { per_imgae: 0.05 }\n',
    );
  });
});
