import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";

describe("gwrun validate", () => {
  it("accepts the demo manifest", async () => {
    const result = await gwrun(["validate", "manifests/campaign.yaml"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("manifests/campaign.yaml: valid");
  });

  it("prints every error as file:line:col, message and rule, with a code frame, and exits 2", async () => {
    const result = await gwrun(["validate", "test/fixtures/bad-manifests/unknown-key.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'test/fixtures/bad-manifests/unknown-key.yaml:9:5  error promt: unknown field (did you mean "prompt"?)  [unknown-field]',
    );
    expect(result.stderr).toMatch(/>\s+9 \|\s+promt: a ceramic mug/);
    expect(result.stderr).toContain("3 errors; nothing was submitted");
  });

  it(`an unquoted \${…} in a flow map is one error, with a hint under its frame`, async () => {
    const result = await gwrun(["validate", "test/fixtures/bad-manifests/yaml-flow-env.yaml"]);
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

  it("an unquoted {name} or {date} in a flow map gets the same hint", async () => {
    const result = await gwrun(["validate", "test/fixtures/bad-manifests/yaml-flow-folder.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      [
        "test/fixtures/bad-manifests/yaml-flow-folder.yaml:5:16  error Unexpected flow-map-start at node end  [yaml-syntax]",
        "    4 | name: spring-campaign",
        "  > 5 | output: { dir: data/outputs/{name}/{date} }",
        "      |                ^",
        "    6 | jobs:",
        '  hint: quote the value, e.g. dir: "data/outputs/{name}/{date}" (unquoted, YAML reads its "{" as the start of a map)',
      ].join("\n"),
    );
    expect(result.stderr).toContain("1 error; nothing was submitted");
  });

  it("an empty CSV cell a template reads is a warning at the data file's row and column", async () => {
    const dir = tempDir({
      "rows.csv": "sku,product,colour\nA1,mug,blue\nA2,,red\n",
      "shots.yaml": `version: 1
name: shots
jobs:
  - { id: shot, model: acme-image-2, rows: rows.csv, size: "1:1", prompt: "a {{row.product}} in {{row.colour}}" }
`,
    });
    const result = await gwrun(["validate", path.join(dir, "shots.yaml")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /rows\.csv:3:4 {2}warning this row's "product" is empty: \{\{row\.product\}\} reads as nothing \(row 2, used by job "shot"\) {2}\[row-empty\]\n.*\n {2}> 3 \| A2,,red\n/,
    );
    expect(result.stderr.match(/\[row-empty\]/g)).toHaveLength(1);
  });

  it("validates several manifests and fails if any is invalid", async () => {
    const result = await gwrun([
      "validate",
      "manifests/campaign.yaml",
      "test/fixtures/bad-manifests/cycle.yaml",
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain("campaign.yaml: valid");
    expect(result.stderr).toContain("dependency cycle: first → second → first");
  });

  it("warns at max_cost, still valid, when tasks of unknown price have no unknown_cost", async () => {
    const manifest = `version: 1
limits:
  max_cost: 2
jobs:
  - { id: priced, model: acme2.7-image, prompt: a mug }
  - { id: stills, model: acme-image-2, prompt: a mug, repeat: 3 }
  - { id: notes, endpoint: chat, model: acme-5, messages: [{ role: user, content: hi }] }
  - { id: clips, model: acme-video-2.3-Fast, from: stills, first_frame_image: "{{input.url}}", prompt: "[推进] in" }
`;
    const dir = tempDir({
      "budget.yaml": manifest,
      "reserved.yaml": manifest.replace("max_cost: 2", "max_cost: 2\n  unknown_cost: 0.5"),
    });
    const result = await gwrun(["validate", path.join(dir, "budget.yaml")]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "budget.yaml:3:13  warning max_cost cannot protect 4 tasks whose price is unknown (job ids stills, notes), nor the tasks of from: job id clips; set limits.unknown_cost  [unknown-price]",
    );
    const reserved = await gwrun(["validate", path.join(dir, "reserved.yaml")]);
    expect(reserved.code).toBe(0);
    expect(reserved.stderr).toBe("");
  });

  it("gwrun validate shows file:line:column and the rule for a private URL", async () => {
    const dir = tempDir({
      "private.yaml": `version: 1
jobs:
  - id: edit
    model: acme-image-2
    prompt: a mug
    image_urls:
      - https://cdn.example.com/a.png
      - http://localhost:8080/img/a.png
`,
    });
    const file = path.join(dir, "private.yaml");
    const result = await gwrun(["validate", file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}:8:9  error image_urls[1]: http://localhost:8080/img/a.png: its host is localhost, which the gateway cannot reach; the contract asks for a publicly reachable URL (for a gateway inside the same private network, set gateway.private_urls: true)  [public-url]`,
    );
  });

  it("says so when a manifest file does not exist", async () => {
    const result = await gwrun(["validate", "manifests/nope.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot read manifests/nope.yaml: no such file");
  });
});

describe("gwrun validate --request", () => {
  const valid = {
    endpoint: "/v1/images/generations",
    body: { model: "acme-image-2", prompt: "a mug" },
  };

  it("a model sent to the wrong endpoint is told the endpoint that serves it, never itself", async () => {
    const lines = [
      {
        endpoint: "/v1/images/generations",
        body: { model: "acme2.7-videoedit", video_urls: ["https://cdn.example.com/a.mp4"] },
      },
      {
        endpoint: "/v1/images/edits",
        body: {
          model: "acme-imagine-1.0",
          prompt: "bluer",
          image_urls: ["https://cdn.example.com/a.png"],
        },
      },
    ];
    const result = await gwrun(["validate", "--request", "-", "--jsonl"], {
      input: lines.map((line) => JSON.stringify(line)).join("\n"),
    });
    const answers = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.errors[0].message)).toEqual([
      "acme2.7-videoedit is a video model (video family 8): send it to the video generation endpoint (/v1/videos/generations)",
      'unknown model "acme-imagine-1.0" for /v1/images/edits (did you mean "acme-imagine-1.0-<suffix>"?)',
    ]);
  });

  it("reads a Data URI's image and holds it to the family's pixel rules", async () => {
    const onePixel =
      "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const request = {
      endpoint: "/v1/images/generations",
      body: { model: "acme-seedance-4-5", prompt: "a mug", image_urls: [onePixel] },
    };
    const result = await gwrun(["validate", "--request", "-"], { input: JSON.stringify(request) });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "body.image_urls[0]: data:image/png;base64,…: is 1×1 px; each side must be at least 15 px  [image-size]\n",
    );
  });

  it("exits 0 for a valid raw request", async () => {
    const result = await gwrun(["validate", "--request", "-"], { input: JSON.stringify(valid) });
    expect(result.code).toBe(0);
  });

  it("exits 2 with each error on stderr", async () => {
    const request = {
      endpoint: "/v1/images/generations",
      body: { model: "acme2.7-image", prompt: "a mug", n: "2" },
    };
    const result = await gwrun(["validate", "--request", "-"], { input: JSON.stringify(request) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('body.n: must be a JSON number, not the quoted string "2"');
    expect(result.stderr).toContain("[json-number]");
  });

  it("answers one line per input with --jsonl", async () => {
    const lines = [
      { id: "ok", ...valid },
      {
        id: "bad-model",
        endpoint: "/v1/images/generations",
        body: { model: "acme-imgae-2", prompt: "x" },
      },
      { id: "bad-endpoint", endpoint: "/v1/image/generations", body: {} },
    ];
    const result = await gwrun(["validate", "--request", "-", "--jsonl"], {
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

  const stderrOf = async (request: object) =>
    await gwrun(["validate", "--request", "-"], { input: JSON.stringify(request) });

  it("refuses a GIF Data URI in image family B's image_urls", async () => {
    const result = await stderrOf({
      endpoint: "/v1/images/generations",
      body: {
        model: "acme2.7-image",
        prompt: "a mug",
        image_urls: ["data:image/gif;base64,R0lGODlh"],
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "body.image_urls[0]: a data:image/gif URI is not one of the formats this field takes (JPEG, PNG, WEBP, BMP)  [image-format]",
    );
  });

  it("refuses a BMP Data URI in a responses input_image block, by that field's list", async () => {
    const image = { type: "input_image", image_url: "data:image/bmp;base64,Qk0=" };
    const result = await stderrOf({
      endpoint: "/v1/responses",
      body: { model: "acme-5", input: [{ role: "user", content: [image] }] },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "body.input[0].content[0].image_url: a data:image/bmp URI is not one of the formats this field takes (JPEG, PNG, GIF, WEBP)  [image-format]",
    );
  });

  it("refuses a native model outside the four variants, at the endpoint", async () => {
    const contents = [{ role: "user", parts: [{ text: "hi" }] }];
    const result = await stderrOf({
      endpoint: "/v1beta/models/acme-3.0-flash:generateContent",
      body: { contents },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "endpoint.model: must be one of <brand>-2.5-flash, <brand>-2.5-pro, <brand>-2.5-flash-lite, <brand>-2.5-pro-thinking; set passthrough: true to send a newer model unchecked  [model]",
    );
    const known = await stderrOf({
      endpoint: "/v1beta/models/acme-2.5-pro:generateContent",
      body: { contents },
    });
    expect(known.code).toBe(0);
  });
});

describe("gwrun validate, image fields in manifests", () => {
  it("reports each image field's format list and the native variants at file:line:col", async () => {
    const images = await gwrun(["validate", "test/fixtures/bad-manifests/image-format.yaml"]);
    expect(images.code).toBe(2);
    expect(images.stderr).toContain(
      "image-format.yaml:12:9  error image_urls[0]: a data:image/gif URI is not one of the formats this field takes (JPEG, PNG, WEBP, BMP)  [image-format]",
    );
    expect(images.stderr).toContain(
      "image-format.yaml:14:9  error image_urls[2]: ./tiny.gif: a GIF image is not one of the formats this field takes (JPEG, PNG, WEBP, BMP)  [image-format]",
    );
    const native = await gwrun(["validate", "test/fixtures/bad-manifests/native-model.yaml"]);
    expect(native.code).toBe(2);
    expect(native.stderr).toContain("native-model.yaml:7:12  error model: must be one of");
    expect(native.stderr).toContain("1 error; nothing was submitted");
  });
});

describe("gwrun validate --json", () => {
  it("prints one JSON object for several manifests, each diagnostic at file, line and column, with the same exit code", async () => {
    const bad = "test/fixtures/bad-manifests/unknown-key.yaml";
    const result = await gwrun(["validate", "--json", "manifests/campaign.yaml", bad]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("");
    const report = JSON.parse(result.stdout) as {
      valid: boolean;
      manifests: { file: string; valid: boolean; jobs: number | null; tasks: number | null }[];
      diagnostics: Record<string, unknown>[];
    };
    expect(report.valid).toBe(false);
    expect(report.manifests).toEqual([
      {
        file: "manifests/campaign.yaml",
        valid: true,
        jobs: 6,
        tasks: 11,
        tasks_upper_bound: false,
      },
      { file: bad, valid: false, jobs: null, tasks: null, tasks_upper_bound: false },
    ]);
    expect(report.diagnostics).toContainEqual({
      file: bad,
      line: 9,
      column: 5,
      severity: "error",
      code: "unknown-field",
      message: 'promt: unknown field (did you mean "prompt"?)',
      hint: null,
    });
    const valid = await gwrun(["validate", "--json", "manifests/campaign.yaml"]);
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toMatchObject({ valid: true, diagnostics: [] });
  });
});
