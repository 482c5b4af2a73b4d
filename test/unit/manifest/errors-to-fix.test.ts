import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkManifestFile } from "../../../src/families/check-manifest.js";
import { formatDiagnostic } from "../../../src/manifest/diagnostics.js";
import { checkInline, errorsOf } from "../../helpers/manifest.js";

const dir = path.join(import.meta.dirname, "../../fixtures/bad-manifests");
const checkFixture = (name: string) => checkManifestFile(path.join(dir, name), {});
const QUOTE_WHY = '(unquoted, YAML reads its "{" as the start of a map)';

describe("YAML syntax errors lead to the fix", () => {
  it(`an unquoted \${…} in a flow map is one error at the value, with a hint to quote it`, async () => {
    const checked = await checkFixture("yaml-flow-env.yaml");
    expect(errorsOf(checked)).toEqual(["5:22 yaml-syntax"]);
    expect(checked.diagnostics[0]?.hint).toBe(
      `quote the value, e.g. base_url: "\${GW_BASE_URL}" ${QUOTE_WHY}`,
    );
  });

  it("one outdented `- id:` is one error naming its line and the column it belongs at", async () => {
    const checked = await checkFixture("yaml-outdent.yaml");
    expect(errorsOf(checked)).toEqual(["10:2 yaml-syntax"]);
    expect(checked.diagnostics[0]?.hint).toBe(
      "line 10 is outdented: this list item starts at column 2, the list items before it at column 3",
    );
  });

  it("a tab used for indentation is named as one", async () => {
    const checked = await checkFixture("yaml-tab.yaml");
    expect(errorsOf(checked)).toEqual(["8:1 yaml-syntax"]);
    expect(checked.diagnostics[0]?.hint).toBe(
      "line 8 is indented with a tab: YAML indents with spaces only",
    );
  });

  it("later mistakes that stand on their own are shown too, three at most", async () => {
    const checked = await checkFixture("yaml-independent.yaml");
    expect(errorsOf(checked)).toEqual(["6:22 yaml-syntax", "14:4 yaml-syntax", "19:1 yaml-syntax"]);
    expect(checked.diagnostics.map((d) => d.hint)).toEqual([
      `quote the value, e.g. base_url: "\${GW_BASE_URL}" ${QUOTE_WHY}`,
      "line 14 is outdented: this key starts at column 4, the keys before it at column 5",
      "line 19 is indented with a tab: YAML indents with spaces only",
    ]);
  });

  it(`a {{…}} or \${…} starting an item of a flow sequence gets the same hint`, async () => {
    const checked = await checkInline(
      [
        "version: 1",
        "jobs:",
        "  - id: styles",
        "    model: acme2.7-image",
        '    prompt: "a mug"',
        `    matrix: { style: [{{base}} glaze, clay], size: [\${SIZE}] }`,
      ].join("\n"),
    );
    expect(errorsOf(checked)).toEqual(["6:23 yaml-syntax"]);
    expect(checked.diagnostics[0]?.hint).toBe(
      `quote the value, e.g. "{{base}} glaze" ${QUOTE_WHY}`,
    );
  });

  it("a key indented too far names the column of the keys before it", async () => {
    const checked = await checkInline(
      "version: 1\njobs:\n  - id: hero\n    model: acme-image-2\n      prompt: a mug\n",
    );
    expect(errorsOf(checked)).toEqual(["5:7 yaml-syntax"]);
    expect(checked.diagnostics[0]?.hint).toBe(
      "line 5 is indented too far: this key starts at column 7, the keys before it at column 5",
    );
  });

  it("what an unclosed [ does to the jobs after it is not shown as more errors", async () => {
    const checked = await checkInline(
      'version: 1\njobs: [\n  - id: a\n    model: x\n  - id: b\n    model: "y\n',
    );
    expect(errorsOf(checked)).toEqual(["3:3 yaml-syntax"]);
  });

  it("keeps an unclosed quote that takes in the rest of the file to one error", async () => {
    const checked = await checkInline(
      'version: 1\njobs:\n  - id: a\n    prompt: "a mug\n  - id: b\n    model: x\n  - id: c\n    prompt: "y"\n',
    );
    expect(errorsOf(checked)).toEqual(["4:19 yaml-syntax"]);
    expect(checked.diagnostics[0]?.hint).toBeUndefined();
  });

  it("the hint is printed under the code frame", async () => {
    const checked = await checkFixture("yaml-flow-env.yaml");
    const text = formatDiagnostic(checked.diagnostics[0]!, checked.source.text);
    expect(text.split("\n").slice(-2)).toEqual([
      "    6 | limits: { submit_rate: 5/s, max_in_flight: 20 }",
      `  hint: quote the value, e.g. base_url: "\${GW_BASE_URL}" ${QUOTE_WHY}`,
    ]);
  });
});

describe("matrix tags", () => {
  it("an unknown field written in the job is reported once, untagged; a bad matrix entry keeps its tag", async () => {
    const checked = await checkFixture("unknown-key-matrix.yaml");
    expect(checked.diagnostics.map((d) => d.message)).toEqual([
      'size: must be a tier (1K, 2K, 4K), a ratio (1:1, 16:9, 9:16, 4:3, 3:4, 3:2, 2:3) or pixels <w>x<h> / <w>*<h>, got "7:7" (in expansion 3 of 6: style="watercolor", size="7:7", and 1 more)',
      'promt: unknown field (did you mean "prompt"?)',
    ]);
  });

  it("names the combination when a field is unknown to only some models of a matrix", async () => {
    const checked = await checkInline(
      [
        "version: 1",
        "jobs:",
        "  - id: clips",
        "    matrix: { model: [acme-video-2.3, acme-image-2] }",
        '    prompt: "[推进] a mug"',
        "    duration: 6",
      ].join("\n"),
    );
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([
      '6:5 duration: unknown field (in expansion 2 of 2: model="acme-image-2")',
    ]);
  });
});

describe("enum and range errors", () => {
  it("each says what it got", async () => {
    const checked = await checkFixture("enum-range.yaml");
    expect(checked.diagnostics.map((d) => d.message)).toEqual([
      "poll.batch_size: must be at most 500, got 600",
      "duration: must be one of 6, 10, got 7 (did you mean 6 or 10?)",
      'resolution: must be one of "768p", "1080p", got "4k"',
    ]);
  });
});
