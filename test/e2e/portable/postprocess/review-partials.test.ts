import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { nodeFileWrites } from "../../../../src/core/file-writes.js";
import { sweepPartials } from "../../../../src/core/fs.js";
import { partialDir } from "../../../../src/core/output-files.js";
import { makeThumbnail, reviewPartial } from "../../../../src/postprocess/thumbnails.js";
import { tempDir } from "../../../helpers/manifest.js";

describe("review image partials", () => {
  it("a thumbnail half written by a killed process is swept by the next run", () => {
    const outputDir = path.join(tempDir(), "out");
    const target = path.join(outputDir, ".thumbs", "hero", "hero-e1-r1.webp");
    const partial = reviewPartial(outputDir, target);
    expect(path.dirname(partial)).toBe(partialDir(outputDir));
    expect(path.extname(partial)).toBe(".webp");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const left = path.basename(partial).replace(`.${process.pid}-`, `.${dead}-`);
    mkdirSync(partialDir(outputDir));
    writeFileSync(path.join(partialDir(outputDir), left), "half");
    expect(sweepPartials(partialDir(outputDir))).toBe(1);
    expect(readdirSync(partialDir(outputDir))).toEqual([]);
  });

  it("a thumbnail leaves no partial behind it", async () => {
    const dir = tempDir();
    const outputDir = path.join(dir, "out");
    const source = path.join(dir, "pic.png");
    await sharp({ create: { width: 64, height: 48, channels: 3, background: "red" } })
      .png()
      .toFile(source);
    const made = await makeThumbnail(
      { source, file: "hero-e1-r1.png" },
      outputDir,
      "hero",
      { width: 32, format: "webp" },
      nodeFileWrites,
    );
    expect(path.basename(made)).toBe("hero-e1-r1.webp");
    expect(readdirSync(path.dirname(made))).toEqual(["hero-e1-r1.webp"]);
    expect(readdirSync(partialDir(outputDir))).toEqual([]);
  });
});
