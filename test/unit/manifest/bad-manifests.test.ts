import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkManifestFile } from "../../../src/families/check-manifest.js";
import { formatDiagnostic } from "../../../src/manifest/diagnostics.js";

/**
 * Each broken manifest states what must be reported, as `# expect: LINE:COL rule` lines;
 * the test asserts exactly those errors, at exactly those places.
 */
const dir = path.join(import.meta.dirname, "../../fixtures/bad-manifests");
const fixtures = readdirSync(dir).filter((name) => name.endsWith(".yaml"));

function expectedOf(file: string): string[] {
  const text = readFileSync(path.join(dir, file), "utf8");
  return [...text.matchAll(/^# expect: (\d+:\d+ [\w-]+)$/gm)].map((match) => match[1] as string);
}

describe("broken manifests", () => {
  it("cover at least twelve kinds of mistake", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(12);
  });

  it.each(fixtures)("%s: reports each error at its line and column", async (file) => {
    const checked = await checkManifestFile(path.join(dir, file), { PATH: process.env.PATH });
    const errors = checked.diagnostics.filter((d) => d.severity === "error");
    expect(checked.valid).toBe(false);
    expect(errors.map((d) => `${d.line}:${d.col} ${d.rule}`)).toEqual(expectedOf(file));
    for (const diagnostic of errors) {
      const text = formatDiagnostic(diagnostic, checked.source.text);
      expect(text.split("\n")[0]).toMatch(
        new RegExp(
          `^.*${file}:${diagnostic.line}:${diagnostic.col}  error .+  \\[${diagnostic.rule}\\]$`,
        ),
      );
      expect(text).toMatch(new RegExp(`>\\s+${diagnostic.line} \\| `));
    }
  });
});
