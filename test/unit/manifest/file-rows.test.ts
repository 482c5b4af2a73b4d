import { createHash } from "node:crypto";
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { checkManifestFile } from "../../../src/families/check-manifest.js";
import { initialTasks } from "../../../src/plan/index.js";
import { errorsOf, tempDir } from "../../helpers/manifest.js";

/** `rows: { files }`: globs through the file gate, the columns of each file, and the keys. */

type Checked = Awaited<ReturnType<typeof checkManifestFile>>;

/** A picture of `width` × `height` pixels in one colour. */
function picture(width: number, height: number, format: "png" | "jpeg", colour = "#c86") {
  const image = sharp({ create: { width, height, channels: 3, background: colour } });
  return (format === "png" ? image.png() : image.jpeg()).toBuffer();
}

/** Writes `files` (paths with folders) below a new project folder; returns its path. */
function project(files: Record<string, string | Buffer>): string {
  const dir = tempDir({ "package.json": "{}" });
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

function check(dir: string, manifest = "m.yaml"): Promise<Checked> {
  return checkManifestFile(path.join(dir, manifest), {});
}

const rowsOf = (checked: Checked, id: string) =>
  checked.jobs
    .filter(({ job }) => job.spec.id === id)
    .map(({ job }) => job.vars.row as Record<string, unknown>);

/** "LINE:COL severity rule message" of every diagnostic. */
const told = (checked: Checked) =>
  checked.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.rule} ${d.message}`);

/** A manifest of one job whose `rows:` is `rows` (YAML), its prompt reading each file's name. */
const shots = (rows: string, extra = "") => `version: 1
jobs:
  - id: shots
    model: acme-image-2
    rows: ${rows}
    prompt: "a mug like {{row.name}}"
${extra}`;

describe("rows of files", () => {
  it("one row per regular file in path order, with its columns; dot files, folders and links left out", async () => {
    const wide = await picture(640, 360, "png");
    const square = await picture(400, 400, "jpeg");
    const dir = project({
      "m.yaml": shots('{ files: "in/**" }'),
      "in/b-wide.png": wide,
      "in/A-square.JPG": square,
      "in/notes.txt": "hello\n",
      "in/deep/er/tiny.png": await picture(20, 10, "png"),
      "in/.DS_Store": "x",
      "in/folder.png/inside.txt": "a folder named like a picture",
    });
    const outside = tempDir({ "x.png": wide });
    symlinkSync(path.join(outside, "x.png"), path.join(dir, "in/link.png"));
    symlinkSync(outside, path.join(dir, "in/linked-folder"));
    const checked = await check(dir);
    expect(errorsOf(checked)).toEqual([]);
    const rows = rowsOf(checked, "shots");
    expect(rows.map((row) => row.file)).toEqual([
      "in/A-square.JPG",
      "in/b-wide.png",
      "in/deep/er/tiny.png",
      "in/folder.png/inside.txt",
      "in/notes.txt",
    ]);
    expect(rows[0]).toEqual({
      file: "in/A-square.JPG",
      name: "A-square.JPG",
      stem: "A-square",
      ext: "jpg",
      folder: "in",
      bytes: square.length,
      sha256: createHash("sha256").update(square).digest("hex"),
      width: 400,
      height: 400,
    });
    expect(rows[1]).toMatchObject({ stem: "b-wide", ext: "png", width: 640, height: 360 });
    expect(rows[2]).toMatchObject({ folder: "in/deep/er", width: 20, height: 10 });
    // Not a picture: no sides.
    expect(rows[4]).toEqual({
      file: "in/notes.txt",
      name: "notes.txt",
      stem: "notes",
      ext: "txt",
      folder: "in",
      bytes: 6,
      sha256: createHash("sha256").update("hello\n").digest("hex"),
    });
  });

  it("a list of globs is one set of rows, each file once; ! leaves files out; where:, matrix and repeat combine", async () => {
    const png = await picture(300, 300, "png");
    const dir = project({
      "m.yaml": shots(
        '{ files: ["in/*.png", "in/**/*.png", "!in/drafts/**"], where: { ext: png } }',
        `    matrix: { size: ["1:1", "16:9"] }
    repeat: 2
    label: "{{row.folder}}-{{row.stem}}-{{size}}"
`,
      ),
      "in/a.png": png,
      "in/more/b.png": png,
      "in/drafts/c.png": png,
    });
    const checked = await check(dir);
    expect(errorsOf(checked)).toEqual([]);
    expect(checked.jobs.map(({ job }) => job.label)).toEqual([
      "in-a-1:1",
      "in-a-16:9",
      "in/more-b-1:1",
      "in/more-b-16:9",
    ]);
    expect(initialTasks(checked.jobs).map((task) => task.label)).toEqual([
      "in-a-1-1-r1",
      "in-a-1-1-r2",
      "in-a-16-9-r1",
      "in-a-16-9-r2",
      "in-more-b-1-1-r1",
      "in-more-b-1-1-r2",
      "in-more-b-16-9-r1",
      "in-more-b-16-9-r2",
    ]);
  });

  it("a glob matching nothing is an error at it, saying what was searched; one of a list is a warning", async () => {
    const dir = project({
      "m.yaml": `${shots('{ files: "in/*.png" }')}  - id: both
    model: acme-image-2
    rows: { files: ["in/*.jpg", "in/*.webp"] }
    prompt: "{{row.name}}"
  - id: folder
    model: acme-image-2
    rows: { files: in }
    prompt: "{{row.name}}"
`,
      "in/a.jpg": await picture(300, 300, "jpeg"),
    });
    const checked = await check(dir);
    const searched = `searched ${path.join(dir, "in")}; names starting with a dot, folders and links are left out`;
    expect(told(checked)).toEqual([
      `5:20 error no-files files: no file matches in/*.png (${searched}): check the pattern`,
      `9:33 warning no-files files: no file matches in/*.webp (${searched}): check the pattern`,
      "13:20 error no-files files: in is a folder: name its files with a pattern, e.g. in/*",
    ]);
    expect(checked.valid).toBe(false);
  });

  it("a glob reaching out of the project, by its path or through a link, is an error, unless files: { allow } names the folder", async () => {
    const shared = tempDir({ "x.png": await picture(300, 300, "png") });
    const dir = project({});
    const relative = path.relative(dir, shared);
    symlinkSync(shared, path.join(dir, "linked"));
    const rows = `{ files: ["${relative}/*.png", "linked/*.png"] }`;
    writeFileSync(path.join(dir, "m.yaml"), shots(rows));
    const refused = await check(dir);
    const outside = `searches outside the project (${dir}): files are read only inside it; name its folder in files: { allow: [...] } to read from it`;
    expect(told(refused)).toEqual([
      `5:21 error outside-project files: ${relative}/*.png ${outside}`,
      `5:${31 + relative.length} error outside-project files: linked/*.png ${outside}`,
    ]);
    writeFileSync(path.join(dir, "m.yaml"), shots(rows, `files: { allow: ["${relative}"] }\n`));
    const allowed = await check(dir);
    expect(errorsOf(allowed)).toEqual([]);
    // Both globs find the one file: a row of its own path.
    expect(rowsOf(allowed, "shots").map((row) => row.file)).toEqual([
      `${relative}/x.png`,
      "linked/x.png",
    ]);
  });

  it("each file in an image field is held to its rules at the glob, naming it; a file that is no picture makes no task, with a warning", async () => {
    const dir = project({
      "m.yaml": `version: 1
jobs:
  - id: clips
    model: acme-1.0
    rows: { files: "in/*" }
    first_frame_image: "{{row.file}}"
    prompt: "slow push in"
    duration: 5
`,
      "in/good.png": await picture(480, 320, "png"),
      "in/small.png": await picture(200, 200, "png"),
      "in/notes.txt": "not a picture",
    });
    const checked = await check(dir);
    expect(told(checked)).toEqual([
      '5:20 error image-size first_frame_image: in/small.png: is 200×200 px; the short side must be at least 300 px (used by job "clips")',
      '5:20 warning not-media first_frame_image: in/notes.txt: not an image gwrun can read (expected JPEG, PNG, WebP, GIF or BMP): it makes no task; a narrower files: pattern leaves it out (used by job "clips")',
    ]);
    writeFileSync(path.join(dir, "in/small.png"), await picture(300, 300, "png"));
    const fixed = await check(dir);
    expect(fixed.valid).toBe(true);
    expect(rowsOf(fixed, "clips").map((row) => row.file)).toEqual(["in/good.png", "in/small.png"]);
  });

  it("a job reading a picture's sides leaves out a file that has none, with a warning", async () => {
    const dir = project({
      "m.yaml": shots('{ files: "in/*" }', '    label: "{{row.stem}}-{{row.width}}"\n'),
      "in/a.png": await picture(300, 300, "png"),
      "in/b.txt": "text",
    });
    const checked = await check(dir);
    expect(told(checked)).toEqual([
      '5:20 warning not-media in/b.txt is not a picture gwrun can read, so it has no width: it makes no task; a narrower files: pattern leaves it out (used by job "shots")',
    ]);
    expect(checked.jobs.map(({ job }) => job.label)).toEqual(["a-300"]);
  });
});

describe("the key of a task made from a file", () => {
  const editing = `version: 1
jobs:
  - id: edit
    model: acme-imagine-1.0-edit-fast
    rows: { files: "in/**/*.png" }
    prompt: "make it warmer"
    image_urls: ["{{row.file}}"]
    label: "{{row.stem}}"
`;
  const keysOf = async (dir: string) =>
    new Map(initialTasks((await check(dir)).jobs).map((task) => [task.label, task.key]));

  it("follows the file's bytes: a renamed or moved file keeps its key, a changed one gets a new key", async () => {
    const dir = project({
      "m.yaml": editing,
      "in/a.png": await picture(300, 300, "png", "#c86"),
      "in/b.png": await picture(300, 300, "png", "#68c"),
    });
    const before = await keysOf(dir);
    mkdirSync(path.join(dir, "in/moved"));
    renameSync(path.join(dir, "in/a.png"), path.join(dir, "in/moved/renamed.png"));
    const after = await keysOf(dir);
    expect(after.get("renamed")).toBe(before.get("a"));
    expect(after.get("b")).toBe(before.get("b"));
    writeFileSync(path.join(dir, "in/b.png"), await picture(300, 300, "png", "#6c8"));
    const changed = await keysOf(dir);
    expect(changed.get("b")).not.toBe(before.get("b"));
    expect(changed.get("renamed")).toBe(before.get("a"));
  });

  it("is the key the same request written with the file's own path has", async () => {
    const dir = project({
      "m.yaml": editing,
      "in/a.png": await picture(300, 300, "png"),
      "single.yaml": editing
        .replace('    rows: { files: "in/**/*.png" }\n', "")
        .replace("{{row.file}}", "in/a.png")
        .replace("{{row.stem}}", "a"),
    });
    const fromRows = initialTasks((await check(dir)).jobs);
    const written = initialTasks((await check(dir, "single.yaml")).jobs);
    expect(fromRows.map((task) => task.key)).toEqual(written.map((task) => task.key));
  });
});
