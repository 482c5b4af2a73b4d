import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkManifestFile } from "../../../../src/families/check-manifest.js";
import { checkInline, errorsOf, tempDir } from "../../../helpers/manifest.js";

/** Manifests that are valid YAML but would hang, run for ages or make odd folders. */

const messagesOf = (checked: Awaited<ReturnType<typeof checkInline>>) =>
  checked.diagnostics.filter((d) => d.severity === "error").map((d) => d.message);

const editOf = (image: string) => `version: 1
jobs:
  - id: edit
    model: acme2.7-image
    prompt: make the mug blue
    image_urls: [${image}]
`;

describe("hostile manifests", () => {
  it("a FIFO named as a local image is refused without opening it", async () => {
    const dir = tempDir();
    try {
      execFileSync("mkfifo", [path.join(dir, "pipe.png")]);
    } catch {
      console.log("skipped: mkfifo is not available here");
      return;
    }
    writeFileSync(path.join(dir, "manifest.yaml"), editOf("./pipe.png"));
    const checked = await checkManifestFile(path.join(dir, "manifest.yaml"), {});
    expect(errorsOf(checked)).toEqual(["6:18 not-a-file"]);
    expect(messagesOf(checked)[0]).toMatch(/pipe\.png is not a regular file/);
  });

  it("/dev/zero as a local image is refused rather than read forever: it lies outside the project", async () => {
    const checked = await checkInline(editOf("/dev/zero"));
    expect(errorsOf(checked)).toEqual(["6:18 outside-project"]);
  });

  it("a matrix expanding beyond the task limit is an error at the matrix", async () => {
    const list = `[${Array.from({ length: 100 }, (_, i) => i).join(", ")}]`;
    const checked = await checkInline(`version: 1
jobs:
  - id: small
    model: acme2.7-image
    prompt: a mug
  - id: huge
    model: acme2.7-image
    matrix: { a: ${list}, b: ${list}, c: ${list} }
    prompt: "{{a}} {{b}} {{c}}"
`);
    expect(errorsOf(checked)).toEqual(["8:13 too-many-tasks"]);
    expect(messagesOf(checked)[0]).toMatch(/1,000,000 tasks .*limits\.max_tasks/);
    expect(checked.jobs.length).toBe(1);
  });

  it("a repeat above limits.max_tasks is an error at the repeat", async () => {
    const checked = await checkInline(`version: 1
limits: { max_tasks: 50 }
jobs:
  - id: many
    model: acme2.7-image
    repeat: 51
    prompt: a mug
`);
    expect(errorsOf(checked)).toEqual(["6:13 too-many-tasks"]);
    const fits = await checkInline(`version: 1
limits: { max_tasks: 51 }
jobs:
  - id: many
    model: acme2.7-image
    repeat: 51
    prompt: a mug
`);
    expect(errorsOf(fits)).toEqual([]);
  });

  it("an unknown {placeholder} in output.dir is an error at the placeholder", async () => {
    const checked = await checkInline(`version: 1
output: { dir: "out/{name}/{nosuch}" }
jobs:
  - id: hero
    model: acme2.7-image
    prompt: a mug
`);
    expect(errorsOf(checked)).toEqual(["2:28 undefined-variable"]);
    expect(messagesOf(checked)[0]).toMatch(/\{nosuch\} is not a name output\.dir knows/);
  });

  it.each([
    ["/var/lib/gateway"],
    ["junk"],
    ["ftp://gateway.example.com"],
  ])("base_url %s is not an http(s) URL", async (url) => {
    const checked = await checkInline(`version: 1
gateway: { base_url: "${url}" }
jobs:
  - id: hero
    model: acme2.7-image
    prompt: a mug
`);
    expect(errorsOf(checked)).toEqual(["2:22 url"]);
  });

  it("an unclosed ${X is an error where it starts", async () => {
    const checked = await checkInline(
      `version: 1
jobs:
  - id: hero
    model: acme2.7-image
    prompt: "a mug by \${ARTIST"
`,
      {},
      { ARTIST: "someone" },
    );
    expect(errorsOf(checked)).toEqual(["5:23 env"]);
    expect(messagesOf(checked)[0]).toMatch(/not closed/);
  });

  it("a job id of thousands of characters is an error at the id", async () => {
    const checked = await checkInline(`version: 1
jobs:
  - id: ${"a".repeat(3000)}
    model: acme2.7-image
    prompt: a mug
`);
    expect(errorsOf(checked)).toHaveLength(1);
    expect(errorsOf(checked)[0]).toMatch(/^3:9 /);
    expect(messagesOf(checked)[0]).toMatch(/at most 100 characters/);
  });
});

describe("YAML merge keys", () => {
  it("a job built with <<: *base takes the base's fields", async () => {
    const checked = await checkInline(`version: 1
vars:
  base: &base
    model: acme2.7-image
    prompt: a mug
jobs:
  - id: hero
    <<: *base
    size: "1:1"
`);
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.jobs[0]?.body).toEqual({ model: "acme2.7-image", prompt: "a mug", size: "1:1" });
  });
});
