import { describe, expect, it } from "vitest";
import type { CheckedJob } from "../../../src/families/index.js";
import { bindInputs } from "../../../src/plan/bind-inputs.js";
import { checkInline, errorsOf } from "../../helpers/manifest.js";

/** Templates that never resolve are errors where they stand; vars may name vars that resolve. */

const errors = (checked: Awaited<ReturnType<typeof checkInline>>) =>
  checked.diagnostics
    .filter((d) => d.severity === "error")
    .map((d) => `${d.line}:${d.col} ${d.rule} ${d.message}`);

const bodies = (checked: Awaited<ReturnType<typeof checkInline>>, id: string) =>
  checked.jobs.filter(({ job }) => job.spec.id === id).map(({ body }) => body);

describe("templates that never resolve", () => {
  it("vars that refer to each other are one error at the reference that closes the cycle, naming it", async () => {
    const checked = await checkInline(`version: 1
vars:
  a: "{{b}}"
  b: "x {{a}}"
jobs:
  - { id: one, model: acme-image-2, prompt: "{{a}}" }
  - { id: two, model: acme-image-2, prompt: "{{b}} again" }
`);
    expect(errors(checked)).toEqual([
      "4:9 template-cycle {{a}} never resolves: the vars refer to each other, a → b → a",
    ]);
    expect(checked.valid).toBe(false);
  });

  it("a var that names itself, or a cycle three long, is found from a matrix value too", async () => {
    const checked = await checkInline(`version: 1
vars: { self: "more {{self}}", c: "{{d}}", d: "{{e}}", e: "{{c}}" }
jobs:
  - id: one
    model: acme-image-2
    matrix: { subject: ["{{self}}", "{{e}}"] }
    prompt: "{{subject}}"
`);
    expect(errors(checked)).toEqual([
      "2:21 template-cycle {{self}} never resolves: the vars refer to each other, self → self",
      "2:60 template-cycle {{c}} never resolves: the vars refer to each other, c → d → e → c",
    ]);
  });

  it("a chain that reaches a name defined nowhere is an error where it breaks, naming the chain", async () => {
    const checked = await checkInline(`version: 1
vars: { subject: "{{glaze}} mug", glaze: "{{colour}} glaze" }
jobs:
  - { id: hero, model: acme-image-2, prompt: "A {{subject}}" }
`);
    expect(errors(checked)).toEqual([
      "2:43 undefined-variable {{colour}} is not defined in vars or the job's matrix; job hero reads it through subject → glaze → colour",
    ]);
  });

  it("double braces holding no name are an error, in a field or in a var it reads", async () => {
    const checked = await checkInline(`version: 1
vars: { subject: "a {{product name}}" }
jobs:
  - { id: hero, model: acme-image-2, prompt: "{{product-name}} and {{subject}}" }
`);
    expect(errorsOf(checked)).toEqual(["2:21 template-syntax", "4:47 template-syntax"]);
    expect(checked.diagnostics[1]?.message).toBe(
      "{{product-name}} is no name gwrun reads (letters, digits and _) and would be sent as written",
    );
  });

  it("vars that name vars many times over are an error, not filled in past a million characters", async () => {
    const vars = Array.from(
      { length: 12 },
      (_, i) => `  v${i}: "${i === 11 ? "ha" : `{{v${i + 1}}}`.repeat(10)}"`,
    );
    const checked = await checkInline(`version: 1
vars:
${vars.join("\n")}
jobs:
  - { id: laughs, model: acme-image-2, prompt: "{{v0}}" }
`);
    expect(errors(checked)).toEqual([
      expect.stringMatching(
        /^3:7 var-too-long \{\{v0\}\} would grow to [\d,]{15,} characters once the vars it names are filled in, more than 1,000,000$/,
      ),
    ]);
    expect(String(bodies(checked, "laughs")[0]?.prompt)).toMatch(/^\{\{v1\}\}/);
  });

  it("vars may name vars, the matrix, {{date}} and {{input.*}}; a matrix key wins over a var of its name", async () => {
    const checked = await checkInline(
      `version: 1
vars:
  subject: "a {{colour}} {{product}}"
  product: mug
  colour: grey
  count: 2
  n: "{{count}}"
  stamp: "{{date}}"
  caption: "{{input.text}}, {{subject}}"
jobs:
  - id: plain
    model: acme2.7-image
    prompt: "{{subject}} on {{stamp}}"
    n: "{{n}}"
  - id: colours
    model: acme-image-2
    matrix: { colour: [red, blue] }
    prompt: "{{subject}}"
  - id: words
    endpoint: chat
    model: acme-5
    messages: [{ role: user, content: "Caption {{subject}}" }]
  - { id: shot, model: acme-image-2, from: words, prompt: "{{caption}}" }
`,
      {},
      {},
      Date.parse("2026-03-01T12:00:00Z"),
    );
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "plain")).toEqual([
      { model: "acme2.7-image", prompt: "a grey mug on 2026-03-01", n: 2 },
    ]);
    expect(bodies(checked, "colours").map((body) => body.prompt)).toEqual([
      "a red mug",
      "a blue mug",
    ]);
    expect(bodies(checked, "shot")[0]?.prompt).toBe("(text produced by words), a grey mug");
  });

  it("an upstream answer holding {{x}} is bound as data, not read as a template", async () => {
    const checked = await checkInline(`version: 1
vars: { product: mug }
jobs:
  - { id: words, endpoint: chat, model: acme-5, messages: [{ role: user, content: "Caption" }] }
  - { id: shot, model: acme-image-2, from: words, prompt: "{{input.text}} ({{product}})" }
`);
    expect(errorsOf(checked)).toEqual([]);
    const template = checked.jobs.find(({ job }) => job.spec.id === "shot") as CheckedJob;
    const bound = bindInputs(template, {
      label: "words",
      kind: "text",
      url: null,
      dataUri: () => "",
      text: () => "A {{product}} on $& {{input.text}}",
    });
    expect(bound).toEqual({
      body: { model: "acme-image-2", prompt: "A {{product}} on $& {{input.text}} (mug)" },
      problem: null,
    });
  });
});
