import { describe, expect, it } from "vitest";
import { gwrun } from "../helpers/cli.js";

describe("gwrun validate", () => {
  it("accepts the demo manifest", () => {
    const result = gwrun(["validate", "manifests/campaign.yaml"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("manifests/campaign.yaml: valid");
  });

  it("prints every error as file:line:col, message and rule, with a code frame, and exits 2", () => {
    const result = gwrun(["validate", "test/fixtures/bad-manifests/unknown-key.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'test/fixtures/bad-manifests/unknown-key.yaml:9:5  error promt: unknown field (did you mean "prompt"?)  [unknown-field]',
    );
    expect(result.stderr).toMatch(/>\s+9 \|\s+promt: a ceramic mug/);
    expect(result.stderr).toContain("3 errors; nothing was submitted");
  });

  it(`item 4: an unquoted \${…} in a flow map is one error, with a hint under its frame`, () => {
    const result = gwrun(["validate", "test/fixtures/bad-manifests/yaml-flow-env.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      [
        "test/fixtures/bad-manifests/yaml-flow-env.yaml:5:22  error Unexpected flow-map-start at node end  [yaml-syntax]",
        "    4 | version: 1",
        `  > 5 | gateway: { base_url: \${GW_BASE_URL} }`,
        "      |                      ^",
        "    6 | limits: { submit_rate: 5/s, max_in_flight: 20 }",
        `  hint: quote the value, e.g. base_url: "\${GW_BASE_URL}" (unquoted, YAML reads its "{" as the start of a map)`,
      ].join("\n"),
    );
    expect(result.stderr).toContain("1 error; nothing was submitted");
  });

  it("validates several manifests and fails if any is invalid", () => {
    const result = gwrun([
      "validate",
      "manifests/campaign.yaml",
      "test/fixtures/bad-manifests/cycle.yaml",
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("campaign.yaml: valid");
    expect(result.stderr).toContain("dependency cycle: first → second → first");
  });

  it("says so when a manifest file does not exist", () => {
    const result = gwrun(["validate", "manifests/nope.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot read manifests/nope.yaml: no such file");
  });
});

describe("gwrun validate --request", () => {
  const valid = {
    endpoint: "/v1/images/generations",
    body: { model: "acme-image-2", prompt: "a mug" },
  };

  it("exits 0 for a valid raw request", () => {
    const result = gwrun(["validate", "--request", "-"], { input: JSON.stringify(valid) });
    expect(result.code).toBe(0);
  });

  it("exits 2 with each error on stderr", () => {
    const request = {
      endpoint: "/v1/images/generations",
      body: { model: "acme2.7-image", prompt: "a mug", n: "2" },
    };
    const result = gwrun(["validate", "--request", "-"], { input: JSON.stringify(request) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('body.n: must be a JSON number, not the quoted string "2"');
    expect(result.stderr).toContain("[json-number]");
  });

  it("answers one line per input with --jsonl", () => {
    const lines = [
      { id: "ok", ...valid },
      {
        id: "bad-model",
        endpoint: "/v1/images/generations",
        body: { model: "acme-imgae-2", prompt: "x" },
      },
      { id: "bad-endpoint", endpoint: "/v1/image/generations", body: {} },
    ];
    const result = gwrun(["validate", "--request", "-", "--jsonl"], {
      input: `${lines.map((line) => JSON.stringify(line)).join("\n")}\nnot json\n`,
    });
    expect(result.code).toBe(2);
    const answers = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(answers.map((answer) => [answer.id, answer.valid])).toEqual([
      ["ok", true],
      ["bad-model", false],
      ["bad-endpoint", false],
      [null, false],
    ]);
    expect(answers[1].errors[0]).toMatchObject({ path: ["body", "model"], rule: "unknown-model" });
    expect(answers[1].errors[0].message).toContain('did you mean "acme-image-2"');
    expect(answers[2].errors[0]).toMatchObject({ path: ["endpoint"], rule: "endpoint" });
    expect(answers[3].errors[0].rule).toBe("json");
  });
});
