import { describe, expect, it } from "vitest";
import { terminalJson, terminalLines, terminalText } from "../../../src/core/text-filter.js";

/** An OSC 8 link, an OSC title change, CSI screen and colour commands, a C1 CSI, a bidi override. */
const HOSTILE =
  "\u001b]8;;https://evil.example/\u001b\\Click here\u001b]8;;\u001b\\ \u001b]0;owned\u0007\u001b[2J\u001b[31mred\u001b[0m \u009b1;1Hmoved \u202eevil";

/** Any escape, control (but the line feed) or bidirectional override. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe("text printed on a terminal", () => {
  it("keeps the words of a line and drops every sequence that drives the terminal", () => {
    expect(terminalText(HOSTILE)).toBe("Click here red moved evil");
  });

  it("keeps an answer's lines apart, and a sequence left open ends with its line", () => {
    const answer = `first line\n\tindented \u001b]2;no end\nthird\r\n${HOSTILE}`;
    const lines = terminalLines(answer);
    expect(lines).toEqual(["first line", " indented ", "third ", "Click here red moved evil"]);
    for (const line of lines) expect(line).not.toMatch(UNSAFE);
  });

  it("writes JSON whose text prints safely and reads back the same", () => {
    const value = { text: HOSTILE, note: "line\u2028break \u0085" };
    const json = terminalJson(value, 2);
    expect(json).not.toMatch(UNSAFE);
    expect(JSON.parse(json)).toEqual(value);
  });
});
