import { describe, expect, it } from "vitest";
import { reporterKind } from "../../../src/ui/index.js";

const terminal = { stderrIsTTY: true, ci: false, term: "xterm-256color" };

describe("choosing a reporter", () => {
  it("draws the dashboard on a terminal", () => {
    expect(reporterKind({}, terminal)).toBe("dashboard");
  });

  it("prints plain lines without a terminal, under CI, on a dumb terminal and with --quiet", () => {
    expect(reporterKind({}, { ...terminal, stderrIsTTY: false })).toBe("plain");
    expect(reporterKind({}, { ...terminal, ci: true })).toBe("plain");
    expect(reporterKind({}, { ...terminal, term: "dumb" })).toBe("plain");
    expect(reporterKind({ quiet: true }, terminal)).toBe("plain");
  });

  it("prints NDJSON with --json, terminal or not", () => {
    expect(reporterKind({ json: true }, terminal)).toBe("json");
    expect(reporterKind({ json: true, quiet: true }, { ...terminal, stderrIsTTY: false })).toBe(
      "json",
    );
  });
});
