import { describe, expect, it } from "vitest";
import { estimatedTokens, FAMILIES, taskCost, usageCost } from "../../../src/families/index.js";
import type { PriceRule } from "../../../src/manifest/index.js";
import { planRun } from "../../../src/plan/index.js";
import { checkInline, errorsOf } from "../../helpers/manifest.js";

const family = (id: string) => {
  const found = FAMILIES.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no family ${id}`);
  return found;
};

const PRICED = `version: 1
prices:
  acme-imagine-1.0-fast: 0.05
  acme-image-2: { by: resolution, 1k: 0.04, 2k: 0.08 }
  acme-video-2.3: { per_second: 0.1 }
  acme2.7-image: { per_image: 0.3 }
  acme-5: { per_1k_input: 0.002, per_1k_output: 0.008 }
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a mug
    repeat: 2
  - id: hero
    model: acme-image-2
    prompt: a mug
    matrix: { resolution: [1k, 2k] }
  - id: clip
    model: acme-video-2.3
    prompt: a mug turning
    duration: 6
  - id: set
    model: acme2.7-image
    prompt: a mug
    n: 3
  - id: cap
    endpoint: chat
    model: acme-5
    max_tokens: 200
    messages: [{ role: user, content: "Caption this mug" }]
`;

describe("prices", () => {
  it("each rule prices a task: per task, per image, per second, by a field's value, per token", () => {
    const rule = (value: PriceRule) => value;
    const b = family("image-b");
    expect(taskCost(b, { model: "acme2.7-image", n: 2 }, rule({ per: "task", amount: 0.07 }))).toBe(
      0.07,
    );
    expect(taskCost(b, { model: "acme2.7-image", n: 3 }, rule({ per: "image", amount: 0.3 }))).toBe(
      0.9,
    );
    // Without a manifest price the contract's stands: 0.20 per standard image.
    expect(taskCost(b, { model: "acme2.7-image", n: 2 }, undefined)).toBe(0.4);
    const video = family("video-1");
    const perSecond = rule({ per: "second", amount: 0.1 });
    expect(taskCost(video, { model: "acme-video-2.3", duration: 10 }, perSecond)).toBe(1);
    const byResolution = rule({ per: "value", field: "resolution", prices: { "1k": 0.04 } });
    const a = family("image-a");
    // Written in another case, the value still finds its price.
    expect(taskCost(a, { model: "acme-image-2", resolution: "1K" }, byResolution)).toBe(0.04);
    expect(taskCost(a, { model: "acme-image-2", resolution: "4k" }, byResolution)).toBeNull();
    const tokens = rule({ per: "tokens", input: 0.002, output: 0.008 });
    const body = {
      model: "acme-5",
      max_tokens: 200,
      messages: [{ role: "user", content: "x".repeat(400) }],
    };
    // 400 + 4 ("user") characters → 101 input tokens; 200 output tokens at most.
    expect(estimatedTokens(body)).toEqual({ input: 101, output: 200 });
    expect(taskCost(family("text-chat"), body, tokens)).toBe(0.001802);
    expect(estimatedTokens({ model: "m", messages: [] }).output).toBe(1000);
  });

  it("a text answer is costed from the usage its format reports", () => {
    const tokens: PriceRule = { per: "tokens", input: 2, output: 8 };
    expect(usageCost(tokens, { prompt_tokens: 100, completion_tokens: 50 })).toBe(0.6);
    expect(usageCost(tokens, { input_tokens: 100, output_tokens: 50 })).toBe(0.6);
    expect(
      usageCost(tokens, {
        promptTokenCount: 100,
        candidatesTokenCount: 40,
        thoughtsTokenCount: 10,
      }),
    ).toBe(0.6);
    expect(usageCost(tokens, { prompt_tokens: 100 })).toBeNull();
    expect(usageCost({ per: "task", amount: 1 }, { prompt_tokens: 1, completion_tokens: 1 })).toBe(
      null,
    );
  });

  it("plan prices every task of a manifest whose prices name each model", async () => {
    const checked = await checkInline(PRICED);
    expect(errorsOf(checked)).toEqual([]);
    const settings = checked.expanded.settings;
    if (settings === undefined) throw new Error("no settings");
    const plan = planRun("m.yaml", settings, checked.jobs);
    expect(plan.totals.tasksWithUnknownCost).toBe(0);
    const costs = Object.fromEntries(plan.groups.map((group) => [group.job, group.cost]));
    // "Caption this mug" and "user" are 20 characters: 5 input tokens, 200 output at most.
    expect(costs).toEqual({ fast: 0.1, hero: 0.12, clip: 0.6, set: 0.9, cap: 0.00161 });
    expect(plan.totals.cost).toBe(1.72161);
    expect(plan.tasks.find((task) => task.jobId === "hero")?.estimatedCost).toBe(0.04);
  });

  it("a prices table is checked against the contract, each error where it is written", async () => {
    const checked = await checkInline(`version: 1
prices:
  acme-imagne-1.0-fast: 0.05
  acme-image-2: { by: resoluton, 1k: 0.04 }
  acme-video-2.3: { per_image: 0.1 }
  acme2.7-image: { per_imgae: 0.3 }
  acme-v4-fast: -1
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a mug
`);
    const messages = checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`);
    expect(messages).toEqual([
      '3:3 prices: unknown model "acme-imagne-1.0-fast" (did you mean "acme-imagine-1.0-fast"?)',
      '4:23 prices: acme-image-2 is priced by "resoluton", which is not a request field of image family A (did you mean "resolution"?)',
      "5:19 prices: acme-video-2.3: per_image prices image models; this is video family 1 (per_second prices clips)",
      '6:20 acme2.7-image: unknown price field (did you mean "per_image"?)',
      "7:17 acme-v4-fast: a price is a number of at least 0",
    ]);
  });

  it("a job whose value of the priced field has no price is an error at that value", async () => {
    const checked = await checkInline(`version: 1
prices:
  acme-image-2: { by: resolution, 1k: 0.04, 2k: 0.08 }
jobs:
  - id: hero
    model: acme-image-2
    prompt: a mug
    matrix: { resolution: [1k, 4k] }
  - id: plain
    model: acme-image-2
    prompt: a mug
`);
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([
      '8:32 prices: acme-image-2 has no price for resolution "4k" (priced: 1k, 2k)',
      '10:12 acme-image-2 is priced by resolution (1k, 2k), which job "plain" does not set: set resolution in the job so its price is known',
    ]);
  });

  it("a shared prices file is read relative to the manifest, its errors located in it", async () => {
    const checked = await checkInline(
      `version: 1
prices: { file: shared/prices.yaml }
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a mug
`,
      { "prices.yaml": "" },
    );
    // The folder does not exist: said at the file's name.
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.rule}`)).toEqual([
      "2:17 missing-file",
    ]);
    const shared = await checkInline(
      `version: 1
prices: { file: prices.yaml }
jobs:
  - id: fast
    model: acme-imagine-1.0-fast
    prompt: a mug
`,
      { "prices.yaml": "# team prices\nacme-imagine-1.0-fast: 0.05\nacme-imagin-2: 0.1\n" },
    );
    const [problem] = shared.diagnostics;
    expect(problem?.file).toMatch(/prices\.yaml$/);
    expect(`${problem?.line}:${problem?.col} ${problem?.message}`).toBe(
      '3:1 prices: unknown model "acme-imagin-2" (did you mean "acme-image-2"?)',
    );
    expect(problem?.text).toContain("# team prices");
  });
});
