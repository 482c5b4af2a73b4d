import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { checkInline, errorsOf } from "../../helpers/manifest.js";

const bodies = (checked: Awaited<ReturnType<typeof checkInline>>, id: string) =>
  checked.jobs.filter(({ job }) => job.spec.id === id).map(({ body }) => body);

/** A 640×480 red picture in `format`, as a local reference image. */
function redPicture(format: "png" | "gif"): Promise<Buffer> {
  return sharp({ create: { width: 640, height: 480, channels: 3, background: "red" } })
    .toFormat(format)
    .toBuffer();
}

describe("manifest expansion", () => {
  it("expands a matrix into its cartesian product, setting request fields and variables", async () => {
    const checked = await checkInline(`
version: 1
vars: { product: ceramic mug }
jobs:
  - id: styles
    model: acme2.7-image
    matrix: { style: [watercolor, clay], size: ["1:1", "9:16"] }
    prompt: "{{product}}, {{style}} style"
`);
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "styles")).toEqual([
      { model: "acme2.7-image", prompt: "ceramic mug, watercolor style", size: "1:1" },
      { model: "acme2.7-image", prompt: "ceramic mug, watercolor style", size: "9:16" },
      { model: "acme2.7-image", prompt: "ceramic mug, clay style", size: "1:1" },
      { model: "acme2.7-image", prompt: "ceramic mug, clay style", size: "9:16" },
    ]);
  });

  it("merges defaults only into jobs whose family defines the field", async () => {
    const checked = await checkInline(`
version: 1
defaults: { watermark: true, official_fallback: true }
jobs:
  - id: b
    model: acme2.7-image
    prompt: a mug
  - id: a
    model: acme-image-2
    prompt: a mug
  - id: own
    model: acme2.7-image
    prompt: a mug
    watermark: false
`);
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "b")).toEqual([
      { model: "acme2.7-image", prompt: "a mug", watermark: true },
    ]);
    expect(bodies(checked, "a")).toEqual([
      { model: "acme-image-2", prompt: "a mug", official_fallback: true },
    ]);
    expect(bodies(checked, "own")[0]?.watermark).toBe(false);
  });

  it("reads the environment, with defaults, and keeps a whole {{var}} typed", async () => {
    const checked = await checkInline(
      `
version: 1
gateway: { base_url: "\${GW_TEST_URL:-sim}" }
vars: { count: 3, who: "\${GW_TEST_WHO}" }
jobs:
  - id: set
    model: acme2.7-image
    prompt: "mugs by {{who}}"
    n: "{{count}}"
`,
      {},
      { GW_TEST_WHO: "Ada" },
    );
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.expanded.settings?.gateway.baseUrl).toBe("sim");
    expect(bodies(checked, "set")).toEqual([
      { model: "acme2.7-image", prompt: "mugs by Ada", n: 3 },
    ]);
  });

  it("offers {{input.*}} only to jobs with from:", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - id: hero
    model: acme-image-2
    prompt: "{{input.text}}"
`);
    expect(errorsOf(checked)).toEqual(["6:14 undefined-variable"]);
    expect(checked.diagnostics[0]?.message).toContain("only available in a job with from:");
  });

  it("counts repeats without repeating validation, and skips disabled jobs", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - { id: four, model: acme-image-2, prompt: a mug, repeat: 4 }
  - { id: off, model: acme-image-2, prompt: a mug, enabled: false }
`);
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.jobs.map(({ job }) => [job.spec.id, job.spec.repeat])).toEqual([["four", 4]]);
  });

  it("leaves out the dependants of a disabled job, with a warning", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug, enabled: false }
  - { id: clip, model: acme-video-2.3, prompt: a mug, first_frame_image: "{{input.url}}", from: hero }
  - { id: other, model: acme-image-2, prompt: a cup }
`);
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.rule}`)).toEqual([
      "5:97 warning disabled-upstream",
    ]);
    expect(checked.jobs.map(({ job }) => job.spec.id)).toEqual(["other"]);
  });

  it("sends a passthrough job unchecked, with a warning", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - { id: new, model: acme-image-9, endpoint: images, prompt: a mug, future_field: 1, passthrough: true }
`);
    expect(checked.valid).toBe(true);
    expect(checked.diagnostics.map((d) => `${d.severity} ${d.rule}`)).toEqual([
      "warning passthrough",
    ]);
    expect(checked.jobs[0]?.endpoint).toBe("/v1/images/generations");
  });

  it("inlines a local reference image as a Data URI after checking it", async () => {
    const png = await redPicture("png");
    const checked = await checkInline(
      `
version: 1
jobs:
  - id: edit
    model: acme2.7-image
    prompt: make it blue
    image_urls: [./ref.png]
`,
      { "ref.png": png },
    );
    expect(errorsOf(checked)).toEqual([]);
    expect(bodies(checked, "edit")[0]?.image_urls).toEqual([
      `data:image/png;base64,${png.toString("base64")}`,
    ]);
  });

  it("rejects a local image whose format the family does not accept", async () => {
    const gif = await redPicture("gif");
    const checked = await checkInline(
      `
version: 1
jobs:
  - id: ref
    model: acme-seedance-4-5
    prompt: a mug
    image_urls: [ref.gif]
`,
      { "ref.gif": gif },
    );
    expect(errorsOf(checked)).toEqual(["7:18 image-format"]);
  });

  it("refuses a local GIF in image family B with the message a GIF Data URI gets", async () => {
    const gif = await redPicture("gif");
    const checked = await checkInline(
      `
version: 1
jobs:
  - id: edit
    model: acme2.7-image
    prompt: make it blue
    image_urls: [ref.gif, "data:image/gif;base64,${gif.toString("base64")}"]
`,
      { "ref.gif": gif },
    );
    expect(errorsOf(checked)).toEqual(["7:18 image-format", "7:27 image-format"]);
    const taken = "is not one of the formats this field takes (JPEG, PNG, WEBP, BMP)";
    expect(checked.diagnostics.map((d) => d.message)).toEqual([
      `image_urls[0]: ref.gif: a GIF image ${taken}`,
      `image_urls[1]: a data:image/gif URI ${taken}`,
    ]);
  });

  it("sends a native model outside the four variants only with passthrough", async () => {
    const job = (id: string, extra: string) => `
  - id: ${id}
    endpoint: native
    model: acme-3.0-flash${extra}
    contents: [{ role: user, parts: [{ text: hi }] }]`;
    const checked = await checkInline(
      `version: 1\njobs:${job("checked", "")}${job("newer", "\n    passthrough: true")}`,
    );
    expect(errorsOf(checked)).toEqual(["5:12 model"]);
    expect(checked.diagnostics[0]?.message).toContain("set passthrough: true");
    const sent = await checkInline(`version: 1\njobs:${job("newer", "\n    passthrough: true")}`);
    expect(sent.valid).toBe(true);
    expect(sent.jobs[0]?.endpoint).toBe("/v1beta/models/acme-3.0-flash:generateContent");
  });

  it("reports every problem of a manifest at once", async () => {
    const checked = await checkInline(`
version: 1
limits: { submit_rate: fast }
jobs:
  - { id: a, model: acme-image-2, prompt: a mug, n: 2 }
  - { id: b, model: acme2.7-image, prompt: a mug, n: "2" }
  - { id: c, model: acme2.7-image, prompt: a mug, from: a, sizee: "1:1" }
`);
    expect(errorsOf(checked)).toEqual([
      "3:24 format",
      "5:53 range",
      "6:54 json-number",
      "7:60 unknown-field",
    ]);
  });

  it("refuses a local file where the family takes only URLs", async () => {
    const png = await redPicture("png");
    const checked = await checkInline(
      `
version: 1
jobs:
  - id: clip
    model: acmeq3
    prompt: the mug turns slowly
    image_urls: [ref.png]
`,
      { "ref.png": png },
    );
    expect(errorsOf(checked)).toEqual(["7:18 url-only"]);
    expect(checked.diagnostics[0]?.message).toContain("accepts only http(s) URLs here");
  });

  it("places an unknown model given by a matrix at its matrix entry", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - id: compare
    prompt: a mug
    matrix: { model: [acme-image-2, acme-imgae-3] }
`);
    expect(errorsOf(checked)).toEqual(["6:37 unknown-model"]);
  });

  it("requires the messages version header for messages jobs", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - id: ask
    endpoint: messages
    model: acme-sonnet
    max_tokens: 100
    messages: [{ role: user, content: hello }]
`);
    expect(errorsOf(checked)).toEqual(["5:15 required-header"]);
  });
});

describe("diagnostics", () => {
  it("say that an unquoted {{template}} is read by YAML as a mapping", async () => {
    const checked = await checkInline(`
version: 1
vars: { product: mug }
jobs:
  - { id: hero, model: acme-image-2, prompt: {{product}} }
`);
    expect(errorsOf(checked)).toEqual(["5:46 type"]);
    expect(checked.diagnostics[0]?.message).toContain("must be quoted in YAML");
  });

  it("name a pattern's own requirement, not the pattern", async () => {
    const checked = await checkInline(`
version: 1
jobs:
  - { id: "hero shot", model: acme-image-2, prompt: a mug }
`);
    expect(errorsOf(checked)).toEqual(["4:11 format"]);
    expect(checked.diagnostics[0]?.message).toBe(
      "jobs[0].id: must use only letters, digits, _ and -",
    );
  });

  it("never show the value of an api_key line in a code frame", async () => {
    const checked = await checkInline(`
version: 1
gateway:
  api_key: sk-live-do-not-print
  base_urll: sim
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug }
`);
    const { formatDiagnostic } = await import("../../../src/manifest/diagnostics.js");
    const text = checked.diagnostics
      .map((d) => formatDiagnostic(d, checked.source.text))
      .join("\n");
    expect(errorsOf(checked)).toEqual(["5:3 unknown-field"]);
    expect(text).toContain("api_key: ***");
    expect(text).not.toContain("sk-live-do-not-print");
  });
});
