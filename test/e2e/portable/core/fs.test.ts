import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { partialFile, sweepPartials } from "../../../../src/core/fs.js";
import { tempDir } from "../../../helpers/manifest.js";

describe("partial files", () => {
  it("clears what a dead process left half written and keeps what a live one is writing", () => {
    const dir = tempDir();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const live = partialFile(dir, "/out/a/a-e1-r1.png");
    const left = path.join(dir, `a-e1-r2.png.${dead}-0badf00d.part`);
    const other = path.join(dir, "notes.txt");
    for (const file of [live, left, other]) writeFileSync(file, "x");
    expect(sweepPartials(dir)).toBe(1);
    expect(readdirSync(dir).sort()).toEqual([path.basename(live), "notes.txt"].sort());
  });

  it("has nothing to clear when the folder does not exist", () => {
    expect(sweepPartials(path.join(tempDir(), "missing"))).toBe(0);
  });
});
