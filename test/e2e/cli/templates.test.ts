import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../helpers/cli.js";
import { fastSettings, withRun } from "../../helpers/run.js";

/** Templates that never resolve stop a manifest where the user meets it: validate and run. */

describe("templates that never resolve", () => {
  it("gwrun validate reports vars that refer to each other at file:line:column, naming the chain, and exits 2", async () => {
    const result = await gwrun(["validate", "test/fixtures/bad-manifests/var-cycle.yaml"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      [
        "test/fixtures/bad-manifests/var-cycle.yaml:5:7  error {{a}} never resolves: the vars refer to each other, a → b → a  [template-cycle]",
        '    4 |   a: "{{b}}"',
        '  > 5 |   b: "{{a}}"',
        "      |       ^",
      ].join("\n"),
    );
    expect(result.stderr).toContain("1 error; nothing was submitted");
  });

  it("gwrun run sends nothing when a var chain breaks, and says where", async () => {
    await withRun({ seed: "templates" }, async (scope) => {
      const manifest = scope.write(
        "broken.yaml",
        `${fastSettings(scope.outputDir)}name: broken
vars:
  subject: "a {{glaze}} mug"
  glaze: "{{colour}} glaze"
  a: "{{b}}"
  b: "{{a}}"
jobs:
  - { id: hero, model: acme-image-2, prompt: "{{subject}}" }
  - { id: loop, model: acme-image-2, prompt: "{{a}}" }
  - { id: odd, model: acme-image-2, prompt: "{{product-name}}" }
`,
      );
      const result = await scope.gwrun(["run", manifest]).done;
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "broken.yaml:9:11  error {{colour}} is not defined in vars or the job's matrix; job hero reads it through subject → glaze → colour  [undefined-variable]",
      );
      expect(result.stderr).toContain(
        "broken.yaml:11:7  error {{a}} never resolves: the vars refer to each other, a → b → a  [template-cycle]",
      );
      expect(result.stderr).toContain(
        "broken.yaml:15:46  error {{product-name}} is no name gwrun reads (letters, digits and _) and would be sent as written  [template-syntax]",
      );
      expect(result.stderr).toContain("broken.yaml: invalid; nothing was submitted");
      expect(scope.sim.counters().requests).toBe(0);
      expect(existsSync(scope.outputDir)).toBe(false);
    });
  });
});
