import { closeSync, fstatSync, openSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { LineSpool } from "../../../src/cli/line-spool.js";

const spools = () => readdirSync(tmpdir()).filter((name) => name.startsWith("gwrun-plan-"));

describe("the lines gwrun plan --json keeps until its totals are printed", () => {
  it("gives back every line in order, then leaves no file, and closes nothing else", async () => {
    const before = spools();
    const spool = new LineSpool();
    const lines = Array.from({ length: 25_000 }, (_, i) => JSON.stringify({ key: `t${i}`, i }));
    for (const line of lines) spool.add(line);
    expect(spool.count).toBe(lines.length);
    const read: string[] = [];
    for await (const line of spool.lines()) read.push(line);
    expect(read).toEqual(lines);
    // A file opened since (it may get the spool's old descriptor) stays open.
    const other = openSync(tmpdir(), "r");
    try {
      spool.remove();
      expect(() => fstatSync(other)).not.toThrow();
    } finally {
      closeSync(other);
    }
    expect(spools()).toEqual(before);
  });
});
