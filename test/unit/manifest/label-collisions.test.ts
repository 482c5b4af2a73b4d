import { describe, expect, it } from "vitest";
import { checkInline } from "../../helpers/manifest.js";

/**
 * A job's labels are kept with the number of the expansion that took each
 * first, not the expansion; a collision names both tasks as they were made.
 */

const collisions = async (yaml: string, files: Record<string, string> = {}) =>
  (await checkInline(yaml, files)).diagnostics
    .filter((d) => d.rule === "label-collision")
    .map((d) => `${d.line}:${d.col} ${d.message}`);

describe("label collisions", () => {
  it("a task found by its number is named by its row and matrix values, objects as JSON", async () => {
    expect(
      await collisions(
        `version: 1
jobs:
  - id: shots
    model: acme-image-2
    rows: p.csv
    prompt: "{{row.name}} {{style}}"
    matrix: { style: [plain, { k: 1 }] }
    label: "{{row.name}}-{{style}}"
`,
        { "p.csv": "name\npan\nmug\npan\n" },
      ),
    ).toEqual([
      '8:12 label: "pan-plain" names both (row 1, style="plain") and (row 3, style="plain"); "pan-{-k-1}" names both (row 1, style={"k":1}) and (row 3, style={"k":1}); add a value that tells them apart (a row\'s id, a matrix key)',
    ]);
  });

  it("a matrix value written as a template is named as it was rendered", async () => {
    expect(
      await collisions(`version: 1
vars: { base: x }
jobs:
  - id: tones
    model: acme-image-2
    prompt: "a mug {{tone}}"
    matrix: { tone: ["{{base}}-1", "{{base}}-2"], size: ["1:1", "16:9"] }
    label: "{{tone}}"
`),
    ).toEqual([
      '8:12 label: "x-1" names both (tone="x-1", size="1:1") and (tone="x-1", size="16:9"); "x-2" names both (tone="x-2", size="1:1") and (tone="x-2", size="16:9"); add a value that tells them apart (a row\'s id, a matrix key)',
    ]);
  });
});
