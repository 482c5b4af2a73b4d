import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { encodeTestClip } from "../../../src/media/index.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";

/** Through the CLI against the simulator: a folder of files as rows, each file paid once. */

/** A picture of `width` × `height` pixels in one colour. */
function picture(width: number, height: number, format: "png" | "jpeg", colour: string) {
  const image = sharp({ create: { width, height, channels: 3, background: colour } });
  return (format === "png" ? image.png() : image.jpeg()).toBuffer();
}

/** Writes a file of the scope's `in/` folder. */
function put(scope: RunScope, name: string, content: string | Buffer): Buffer {
  mkdirSync(path.join(scope.dir, "in"), { recursive: true });
  writeFileSync(path.join(scope.dir, "in", name), content);
  return Buffer.from(content);
}

interface PlannedTask {
  label: string;
  status: string;
  vars: { row: Record<string, unknown> };
}

async function planOf(scope: RunScope, manifest: string) {
  const result = await scope.gwrun(["plan", manifest, "--json"]).done;
  expect(result.code, result.stderr).toBe(0);
  const plan = JSON.parse(result.stdout) as { tasks: PlannedTask[] };
  const statuses = Object.fromEntries(plan.tasks.map((task) => [task.label, task.status]));
  return { tasks: plan.tasks, statuses, stderr: result.stderr };
}

const EDIT = `jobs:
  - id: edit
    model: acme-imagine-1.0-edit-fast
    rows: { files: "in/*" }
    prompt: "Make the light warmer"
    image_urls: ["{{row.file}}"]
    label: "{{row.stem}}-{{row.width}}x{{row.height}}"
`;

describe("rows of a folder's files", () => {
  it("makes one task per picture with its columns, leaves out a file that is no picture, pays nothing for a rename and one task for a new file", async () => {
    await withRun({ seed: "folder" }, async (scope) => {
      const manifest = scope.write("folder.yaml", `${fastSettings(scope.outputDir)}${EDIT}`);
      put(scope, "wide.png", await picture(640, 360, "png", "#c86"));
      const square = put(scope, "square.jpg", await picture(400, 400, "jpeg", "#68c"));
      put(scope, "tall.png", await picture(300, 450, "png", "#6c8"));
      put(scope, "notes.txt", "shot list for Monday\n");

      const first = await planOf(scope, manifest);
      expect(first.statuses).toEqual({
        "square-400x400": "new",
        "tall-300x450": "new",
        "wide-640x360": "new",
      });
      expect(first.tasks[0]?.vars.row).toEqual({
        file: "in/square.jpg",
        name: "square.jpg",
        stem: "square",
        ext: "jpg",
        folder: "in",
        bytes: square.length,
        sha256: createHash("sha256").update(square).digest("hex"),
        width: 400,
        height: 400,
      });
      expect(first.stderr).toContain(
        "in/notes.txt is not a picture gwrun can read, so it has no width, height: it makes no task",
      );

      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code, run.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(3);
      expect(filesBelow(path.join(scope.outputDir, "edit")).sort()).toEqual([
        "square-400x400.png",
        "square-400x400.png.json",
        "tall-300x450.png",
        "tall-300x450.png.json",
        "wide-640x360.png",
        "wide-640x360.png.json",
      ]);

      // Renamed: the same bytes, the same task. Its file keeps the name it was paid under.
      renameSync(path.join(scope.dir, "in/wide.png"), path.join(scope.dir, "in/a-wide.png"));
      const renamed = await planOf(scope, manifest);
      expect(renamed.statuses).toEqual({
        "a-wide-640x360": "done",
        "square-400x400": "done",
        "tall-300x450": "done",
      });
      const again = await scope.gwrun(["run", manifest]).done;
      expect(again.code, again.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(3);
      const wide = (await scope.tasks()).find((task) => task.label === "a-wide-640x360");
      expect(
        wide?.outputs.map((output) => path.relative(scope.outputDir, output.path ?? "")),
      ).toEqual(["edit/wide-640x360.png"]);
      const results = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8");
      expect(results).toContain('"label":"a-wide-640x360"');

      // A new file: one new task, paid once.
      put(scope, "new.png", await picture(500, 500, "png", "#c6c"));
      const added = await planOf(scope, manifest);
      expect(Object.entries(added.statuses).filter(([, status]) => status === "new")).toEqual([
        ["new-500x500", "new"],
      ]);
      const third = await scope.gwrun(["run", manifest]).done;
      expect(third.code, third.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(4);
    });
  });

  it("a changed file is a new task; a clip's row has its duration", async () => {
    await withRun({ seed: "folder-clip" }, async (scope) => {
      const manifest = scope.write(
        "folder.yaml",
        `${fastSettings(scope.outputDir)}${EDIT}  - id: notes
    endpoint: chat
    model: acme-5
    rows: { files: "in/*.mp4" }
    messages: [{ role: user, content: "A caption for {{row.name}}, {{row.duration}} s long" }]
`,
      );
      put(scope, "mug.png", await picture(320, 320, "png", "#c86"));
      mkdirSync(path.join(scope.dir, "in"), { recursive: true });
      await encodeTestClip(path.join(scope.dir, "in/steam.mp4"), {
        width: 160,
        height: 90,
        fps: 12,
        durationSeconds: 1,
        background: "6080a0",
        box: 22,
        top: 10,
        speed: 40,
        toneHz: null,
      });
      const first = await planOf(scope, manifest);
      const clip = first.tasks.find((task) => task.vars.row.file === "in/steam.mp4");
      expect(clip?.vars.row).toMatchObject({ ext: "mp4", duration: 1 });
      expect(clip?.vars.row.width).toBeUndefined();
      expect(first.stderr).toContain("in/steam.mp4 is not a picture gwrun can read");
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code, run.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(1);
      const caption = (await scope.tasks()).find((task) => task.job_id === "notes");
      expect(caption?.state).toBe("done");
      expect(JSON.parse(caption?.request ?? "{}").messages[0].content).toBe(
        "A caption for steam.mp4, 1 s long",
      );

      put(scope, "mug.png", await picture(320, 320, "png", "#68c"));
      const changed = await planOf(scope, manifest);
      expect(changed.statuses["mug-320x320"]).toBe("new");
    });
  });
});
