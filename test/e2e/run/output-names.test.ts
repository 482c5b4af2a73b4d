import { mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  LONGEST_NAME_TAIL,
  longestOutputPath,
  NAME_MAX_BYTES,
} from "../../../src/core/output-files.js";
import { gwrun } from "../../helpers/cli.js";
import { checkInline, errorsOf, tempDir } from "../../helpers/manifest.js";
import { fastSettings, filesBelow, withRun } from "../../helpers/run.js";

/** Every output's file names and paths fit the file system, or nothing is paid. */

const id = (letter: string, length: number) => letter.repeat(length);

/** Jobs chained by `from:`, with ids of these lengths (of "a", "b", "c", …). */
function chain(lengths: readonly number[], settings = "version: 1\n"): string {
  const ids = lengths.map((length, index) => id(String.fromCharCode(97 + index), length));
  const jobs = ids.map((jobId, index) =>
    index === 0
      ? `  - id: ${jobId}\n    model: acme-image-2\n    prompt: a mug\n    size: "256x256"\n`
      : `  - id: ${jobId}\n    model: acme-image-2\n    from: ${ids[index - 1]}\n    prompt: the mug again\n    image_urls: ["{{input.url}}"]\n`,
  );
  return `${settings}jobs:\n${jobs.join("")}`;
}

describe("output names that fit", () => {
  it("three 100-character ids chained by from: are refused at each job whose names pass 255 bytes", async () => {
    const dir = tempDir({ "m.yaml": chain([100, 100, 100]) });
    const result = await gwrun(["validate", path.join(dir, "m.yaml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "m.yaml:7:9  error this job's files would have names of up to 264 bytes, over the file system's limit of 255: its longest label takes 209 bytes (it ends a from: chain of 2 jobs)",
    );
    expect(result.stderr).toContain(
      "m.yaml:12:9  error this job's files would have names of up to 373 bytes, over the file system's limit of 255: its longest label takes 318 bytes (it ends a from: chain of 3 jobs)",
    );
    expect(result.stderr).toContain(
      "hint: shorten this job's id, or those of the jobs it follows with from:",
    );
    expect(result.stderr).toContain("2 errors; nothing was submitted");
    const plan = await gwrun([
      "plan",
      path.join(dir, "m.yaml"),
      "--db",
      path.join(dir, "state.db"),
    ]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toContain("[name-too-long]");
  });

  it("gwrun run pays for nothing when a name would not fit", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "long.yaml",
        chain([100, 100, 100], fastSettings(scope.outputDir)),
      );
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("long.yaml: invalid; nothing was submitted");
      expect(scope.sim.counters().submits.accepted).toBe(0);
      expect(filesBelow(scope.outputDir)).toEqual([]);
    });
  });

  it("a chain just inside the limit is run, and its files are written", async () => {
    // 91 + "-of-" + 100 + "-t999" = 200 bytes of label, and 55 gwrun may add: 255.
    await withRun({}, async (scope) => {
      const yaml = chain([100, 91], fastSettings(scope.outputDir));
      const manifest = scope.write("edge.yaml", yaml);
      const run = await scope.gwrun(["run", manifest]).done;
      expect(run.code, run.stderr).toBe(0);
      const files = filesBelow(scope.outputDir).filter((file) => file.endsWith(".png"));
      expect(files).toContain(path.join(id("b", 91), `${id("b", 91)}-of-${id("a", 100)}.png`));
    });
    const over = await checkInline(chain([100, 92]));
    expect(errorsOf(over)).toEqual(["7:9 name-too-long"]);
  });

  it("an output folder deep enough to pass 4095 bytes is refused at the job; a folder name over 255 at output.dir", async () => {
    const deep = Array.from({ length: 21 }, (_, index) => `${index}`.padEnd(200, "d")).join("/");
    const checked = await checkInline(
      `version: 1\noutput: { dir: "${deep}" }\njobs:\n  - { id: hero, model: acme-image-2, prompt: a mug }\n`,
    );
    expect(errorsOf(checked)).toEqual(["4:11 name-too-long"]);
    expect(checked.diagnostics[0]?.message).toMatch(
      /^this job's files would have paths of up to \d+ bytes in .*, over the file system's limit of 4095/,
    );
    const wide = await checkInline(
      `version: 1\noutput: { dir: "out/${"w".repeat(256)}" }\njobs:\n  - { id: hero, model: acme-image-2, prompt: a mug }\n`,
    );
    expect(errorsOf(wide)).toEqual(["2:16 name-too-long"]);
    expect(wide.diagnostics[0]?.hint).toBe("shorten output.dir");
  });

  it("names are measured in UTF-8 bytes, with everything gwrun may append", () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "ü"));
    const longest = longestOutputPath(path.join(dir, "ü"), "hero", "hero-e2");
    expect(longest.name).toBe(7 + Buffer.byteLength(LONGEST_NAME_TAIL));
    expect(longest.path).toBe(
      Buffer.byteLength(path.join(dir, "ü", ".thumbs", "hero")) + 1 + longest.name,
    );
    expect(LONGEST_NAME_TAIL).toMatch(/^-t999-v999\.poster\.jpg\.\d{7}-[0-9a-f]{16}\.part\.jpg$/);
    expect(NAME_MAX_BYTES).toBe(255);
  });
});
