import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { fileGate } from "../../../src/core/file-gate.js";
import { notWholeYet, SettleRule, scanFiles, watchedFolders } from "../../../src/watch/index.js";
import { ManualClock } from "../../helpers/clock.js";
import { tempDir } from "../../helpers/manifest.js";

/** `gwrun watch`'s settle rule, in manual time: a file is taken once still and whole. */

const SETTLE = 2_000;

describe("the settle rule", () => {
  it("takes a file only once it has stayed the same for the settle time and reads whole", () => {
    const clock = new ManualClock();
    const rule = new SettleRule(SETTLE);
    rule.observe(new Map([["in/a.png", "100:1"]]), clock.now());
    expect(rule.arrivals()).toEqual(["in/a.png"]);
    expect(rule.ready(clock.now())).toBe(false);
    expect(rule.nextDeadline(clock.now())).toBe(clock.now() + SETTLE);

    // It grew within the settle time: the wait starts again from the change.
    clock.advance(1_500);
    rule.observe(new Map([["in/a.png", "200:2"]]), clock.now());
    clock.advance(1_500);
    expect(rule.toCheck(clock.now())).toEqual([]);
    expect(rule.ready(clock.now())).toBe(false);
    expect(rule.nextDeadline(clock.now())).toBe(clock.now() + 500);

    // Still for the settle time: its format is checked, and until then it is not settled.
    clock.advance(500);
    expect(rule.toCheck(clock.now())).toEqual([{ file: "in/a.png", signature: "200:2" }]);
    expect(rule.ready(clock.now())).toBe(false);
    expect(rule.checked("in/a.png", "200:2", undefined)).toBe(true);
    expect(rule.ready(clock.now())).toBe(true);
  });

  it("keeps a batch waiting while a still file is not whole, until it changes and reads whole", () => {
    const clock = new ManualClock();
    const rule = new SettleRule(SETTLE);
    rule.observe(new Map([["in/a.png", "1:1"]]), clock.now());
    clock.advance(SETTLE);
    rule.checked("in/a.png", "1:1", undefined);
    rule.taken(rule.snapshot());
    // The first half of a picture, then a pause longer than the settle time.
    rule.observe(
      new Map([
        ["in/a.png", "1:1"],
        ["in/half.png", "50:2"],
      ]),
      clock.now(),
    );
    clock.advance(SETTLE * 2);
    expect(rule.toCheck(clock.now())).toEqual([{ file: "in/half.png", signature: "50:2" }]);
    rule.checked("in/half.png", "50:2", "a PNG cut short");
    expect(rule.ready(clock.now())).toBe(false);
    expect(rule.unsettled(clock.now())).toEqual([
      { file: "in/half.png", problem: "a PNG cut short" },
    ]);
    // A verdict on a signature the file no longer has is old news.
    rule.observe(
      new Map([
        ["in/a.png", "1:1"],
        ["in/half.png", "100:3"],
      ]),
      clock.now(),
    );
    expect(rule.checked("in/half.png", "50:2", undefined)).toBe(false);
    clock.advance(SETTLE);
    rule.checked("in/half.png", "100:3", undefined);
    expect(rule.ready(clock.now())).toBe(true);
    // Only what arrived since the last batch is an arrival.
    expect(rule.arrivals()).toEqual(["in/half.png"]);
  });

  it("counts a changed file again, and forgets one removed", () => {
    const clock = new ManualClock();
    const rule = new SettleRule(SETTLE);
    rule.observe(new Map([["a.jpg", "1:1"]]), clock.now());
    rule.taken(rule.snapshot());
    expect(rule.arrivals()).toEqual([]);
    rule.observe(new Map([["a.jpg", "2:2"]]), clock.now());
    expect(rule.arrivals()).toEqual(["a.jpg"]);
    rule.observe(new Map(), clock.now());
    expect(rule.arrivals()).toEqual([]);
    expect(rule.ready(clock.now())).toBe(false);
    expect(rule.nextDeadline(clock.now())).toBeUndefined();
  });
});

describe("what a watch looks at", () => {
  it("lists the files the globs match as rows: { files } does, and watches their static bases", () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, "in/sub"), { recursive: true });
    writeFileSync(path.join(dir, "in/a.png"), "a");
    writeFileSync(path.join(dir, "in/.hidden.png"), "h");
    writeFileSync(path.join(dir, "in/skip.png"), "s");
    writeFileSync(path.join(dir, "in/sub/b.png"), "bb");
    const scan = scanFiles(dir, ["in/**/*.png", "!in/skip.png"]);
    expect([...scan.keys()].sort()).toEqual(["in/a.png", "in/sub/b.png"]);
    expect(scan.get("in/sub/b.png")).toMatch(/^2:/);
    expect(watchedFolders(dir, ["in/*.png", "photos/**/*.jpg", "!in/x.png", "*.txt"])).toEqual([
      { folder: path.join(dir, "in"), recursive: false },
      { folder: path.join(dir, "photos"), recursive: true },
      { folder: dir, recursive: false },
    ]);
  });

  it("finds a picture cut short not whole, and the whole picture whole", async () => {
    const dir = tempDir();
    const gate = fileGate([dir]);
    const noise = Buffer.alloc(120 * 90 * 3, 0).map((_, i) => (i * 7919) % 251);
    const raw = { raw: { width: 120, height: 90, channels: 3 as const } };
    const png = await sharp(noise, raw).png().toBuffer();
    const jpeg = await sharp(noise, raw).jpeg().toBuffer();
    writeFileSync(path.join(dir, "half.png"), png.subarray(0, png.length - 12));
    writeFileSync(path.join(dir, "half.jpg"), jpeg.subarray(0, jpeg.length / 2));
    writeFileSync(path.join(dir, "whole.png"), png);
    writeFileSync(path.join(dir, "whole.jpg"), jpeg);
    writeFileSync(path.join(dir, "notes.txt"), "not a picture");
    expect(await notWholeYet(gate, dir, "half.png")).toMatch(/^a PNG cut short: .*IEND/);
    expect(await notWholeYet(gate, dir, "half.jpg")).toMatch(/^sharp cannot decode it whole yet/);
    expect(await notWholeYet(gate, dir, "whole.png")).toBeUndefined();
    expect(await notWholeYet(gate, dir, "whole.jpg")).toBeUndefined();
    expect(await notWholeYet(gate, dir, "notes.txt")).toBeUndefined();
  });
});
