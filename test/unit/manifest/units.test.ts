import { describe, expect, it } from "vitest";
import { parseDuration, parseRate } from "../../../src/manifest/units.js";

describe("manifest units", () => {
  it.each([
    ["15s", 15_000],
    ["500ms", 500],
    ["2m", 120_000],
    ["1h", 3_600_000],
    ["1.5s", 1_500],
    [4, 4_000],
  ])("reads the duration %s", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["15", "s", "15 sec", "-1s", "fast"])("refuses the duration %s", (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it.each([
    ["5/s", { count: 5, perMs: 1000 }],
    ["120/m", { count: 120, perMs: 60_000 }],
    ["1000 / h", { count: 1000, perMs: 3_600_000 }],
    ["0.5/s", { count: 0.5, perMs: 1000 }],
  ])("reads the rate %s", (text, rate) => {
    expect(parseRate(text)).toEqual(rate);
  });

  it.each(["5", "0/s", "5/day", "five/s"])("refuses the rate %s", (text) => {
    expect(parseRate(text)).toBeUndefined();
  });
});
