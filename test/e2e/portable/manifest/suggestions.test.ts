import path from "node:path";
import { describe, expect, it } from "vitest";
import { didYouMean, neighbours } from "../../../../src/core/suggest.js";
import { gwrun } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";

/** The error lines `gwrun validate` prints for a manifest of these jobs (YAML). */
async function errorsFor(jobs: string): Promise<string[]> {
  const dir = tempDir({
    "m.yaml": `version: 1\nname: t\ngateway: { base_url: sim }\njobs:\n${jobs}`,
  });
  const result = await gwrun(["validate", path.join(dir, "m.yaml")]);
  expect(result.code).toBe(2);
  return result.stderr
    .split("\n")
    .filter((line) => line.includes(" error "))
    .map((line) => line.slice(line.indexOf(" error ") + 7));
}

describe("did-you-mean where the fix is a runner key or a wrong endpoint", () => {
  it("`form:` in a job is taken for the runner key `from:`", async () => {
    const errors = await errorsFor(
      "  - { id: shots, model: acme-image-2, prompt: a cat }\n  - { id: more, model: acme-image-2, prompt: a dog, form: shots }\n",
    );
    expect(errors).toEqual([
      'form: unknown field (did you mean "from"? a key of the job itself)  [unknown-field]',
    ]);
  });

  it("a request field's own typo still points at the field", async () => {
    const errors = await errorsFor("  - { id: a, model: acme-image-2, promt: a cat }\n");
    expect(errors).toContain('promt: unknown field (did you mean "prompt"?)  [unknown-field]');
  });

  it("after `endpoint: chatt` only the endpoint's error, with its did-you-mean, not one about the model", async () => {
    const errors = await errorsFor(
      "  - id: text\n    endpoint: chatt\n    model: acme-5\n    messages: [{ role: user, content: hi }]\n",
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/endpoint: must be one of .*got "chatt" \(did you mean "chat"\?\)/);
  });
});

describe("enum suggestions by closeness of meaning", () => {
  it("`resolution: 3k` suggests the resolutions either side, 2K or 4K, not the nearest string", async () => {
    const errors = await errorsFor(
      "  - { id: a, model: acme-seedance-4-5, prompt: a dog, resolution: 3k }\n",
    );
    expect(errors).toEqual([
      'resolution: must be one of "2K", "4K", got "3k" (did you mean "2K" or "4K"?)  [enum]',
    ]);
  });

  it("a duration between two allowed ones suggests both", async () => {
    const errors = await errorsFor(
      "  - { id: v, model: acme-video-2.3, prompt: go, duration: 7 }\n",
    );
    expect(errors).toEqual([
      "duration: must be one of 6, 10, got 7 (did you mean 6 or 10?)  [enum]",
    ]);
  });

  it("amounts of one unit get their neighbours; other words the closest string", () => {
    expect(neighbours("3k", ["1K", "2K", "4K"])).toEqual(["2K", "4K"]);
    expect(neighbours("8k", ["1K", "2K", "4K"])).toEqual(["4K"]);
    expect(neighbours("720p", ["480p", "1080p"])).toEqual(["480p", "1080p"]);
    expect(neighbours("3k", ["2K", "square"])).toBeUndefined();
    expect(neighbours("3s", ["2K", "4K"])).toBeUndefined();
    expect(didYouMean("2k", ["1K", "2K", "4K"])).toBe(' (did you mean "2K"?)');
    expect(didYouMean("3k", ["1K", "2K", "4K"])).toBe(' (did you mean "2K" or "4K"?)');
    expect(didYouMean("promt", ["prompt", "size"])).toBe(' (did you mean "prompt"?)');
  });
});
