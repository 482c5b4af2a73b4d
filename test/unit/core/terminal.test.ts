import { describe, expect, it } from "vitest";
import { colourLevel, terminalColumns } from "../../../src/core/terminal.js";
import {
  cutToWidth,
  displayWidth,
  padEndToWidth,
  wrapToWidth,
} from "../../../src/core/text-width.js";

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe("colour: one rule for every writer", () => {
  it("a terminal gets colour, a pipe none, and NO_COLOR (non-empty) turns it off", () => {
    expect(colourLevel(tty, { TERM: "xterm" })).toBe(1);
    expect(colourLevel(pipe, {})).toBe(0);
    expect(colourLevel(tty, { NO_COLOR: "1" })).toBe(0);
    expect(colourLevel(tty, { NO_COLOR: "" })).toBe(1);
    expect(colourLevel(tty, { TERM: "dumb" })).toBe(0);
  });

  it("FORCE_COLOR wins over a pipe and over NO_COLOR; 0 and false turn colour off", () => {
    expect(colourLevel(pipe, { FORCE_COLOR: "1" })).toBe(1);
    expect(colourLevel(pipe, { FORCE_COLOR: "true", NO_COLOR: "1" })).toBe(1);
    expect(colourLevel(pipe, { FORCE_COLOR: "3" })).toBe(3);
    expect(colourLevel(tty, { FORCE_COLOR: "0" })).toBe(0);
    expect(colourLevel(tty, { FORCE_COLOR: "false" })).toBe(0);
  });

  it("a terminal's width is its own; a pipe's is COLUMNS, or none", () => {
    expect(terminalColumns({ isTTY: true, columns: 80 }, { COLUMNS: "200" })).toBe(80);
    expect(terminalColumns(pipe, { COLUMNS: "72" })).toBe(72);
    expect(terminalColumns(pipe, { COLUMNS: "wide" })).toBeUndefined();
    expect(terminalColumns(pipe, {})).toBeUndefined();
  });
});

describe("text measured as a terminal shows it", () => {
  it("CJK and emoji take two columns, a combining mark none", () => {
    expect(displayWidth("猫の写真")).toBe(8);
    expect(displayWidth("👍🏽")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(padEndToWidth("猫", 4)).toBe("猫  ");
    expect(displayWidth(padEndToWidth("猫の", 6))).toBe(displayWidth(padEndToWidth("ab", 6)));
  });

  it("cuts to a width between graphemes, never inside an emoji or before its mark", () => {
    expect(cutToWidth("猫の写真です", 7)).toBe("猫の写…");
    expect(displayWidth(cutToWidth("猫の写真です", 7))).toBeLessThanOrEqual(7);
    // A thumbs-up with its skin tone, then a family: each stays whole or goes whole.
    expect(cutToWidth("ok 👍🏽👨‍👩‍👧 done", 6)).toBe("ok 👍🏽…");
    expect(cutToWidth("cafe\u0301 au lait", 5)).toBe("cafe\u0301…");
    expect(cutToWidth("short", 10)).toBe("short");
  });

  it("wraps at spaces to a width, later lines indented, long words cut whole-grapheme", () => {
    const lines = wrapToWidth("  one two three four five six seven", 16);
    expect(lines).toEqual(["  one two three", "    four five", "    six seven"]);
    for (const line of wrapToWidth(`  ${"写真".repeat(20)} end`, 20))
      expect(displayWidth(line)).toBeLessThanOrEqual(20);
  });
});
