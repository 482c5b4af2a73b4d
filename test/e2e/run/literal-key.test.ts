import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkManifestText } from "../../../src/families/index.js";
import { formatDiagnostic } from "../../../src/manifest/index.js";
import { gwrunHere } from "../../helpers/cli.js";
import { fastSettings, withRun } from "../../helpers/run.js";

/** A key written in a manifest stays out of the state database. */

const KEY = "sk-literal-0123456789abcdef";

function jobs(baseUrl: string): string {
  return `gateway: { base_url: ${JSON.stringify(baseUrl)}, api_key: ${KEY} }
jobs:
  - { id: first, model: acme-image-2, prompt: a ceramic mug, size: "256x256" }
  - { id: second, model: acme-image-2, prompt: a ceramic jug, size: "256x256" }
`;
}

describe("a key written in a manifest", () => {
  it("validation warns, at the key, that it is better in GW_API_KEY, without showing it", async () => {
    const text = `version: 1\n${jobs("https://gw.example.com")}`;
    const checked = await checkManifestText(text, "m.yaml", {}, 0);
    expect(checked.valid).toBe(true);
    const warnings = checked.diagnostics.filter((d) => d.rule === "literal-key");
    expect(warnings).toMatchObject([{ severity: "warning", file: "m.yaml", line: 2, col: 57 }]);
    expect(warnings[0]?.message).toContain("better in the GW_API_KEY environment variable");
    const shown = formatDiagnostic(warnings[0]!, text);
    expect(shown).toMatch(/^m\.yaml:2:57 {2}warning gateway\.api_key: /);
    expect(shown).not.toContain(KEY);
  });

  it("is masked in the run's stored manifest; resume takes the key from GW_API_KEY and says so when it is missing", async () => {
    await withRun({ key: KEY }, async (scope) => {
      const manifest = scope.write(
        "keyed.yaml",
        `${fastSettings(scope.outputDir)}name: keyed\n${jobs(scope.sim.url)}`,
      );
      const gwrun = (args: string[], env: NodeJS.ProcessEnv = {}) =>
        gwrunHere([...args, "--db", scope.db], { cwd: scope.dir, env });

      const first = await gwrun(["run", manifest, "--only", "first"]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain("better in the GW_API_KEY environment variable");
      for (const file of [scope.db, `${scope.db}-wal`])
        if (existsSync(file)) expect(readFileSync(file).includes(KEY)).toBe(false);
      expect(scope.sim.counters().submits.accepted).toBe(1);

      const keyless = await gwrun(["resume"]);
      expect(keyless.code).toBe(2);
      expect(keyless.stderr).toContain(
        "the run's manifest had its key written in it, and the copy kept with the run has it masked",
      );
      expect(keyless.stderr).toContain("set GW_API_KEY to that key in the environment");
      expect(scope.sim.counters().submits.accepted).toBe(1);

      const resumed = await gwrun(["resume"], { GW_API_KEY: KEY });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(scope.sim.counters().submits.accepted).toBe(2);
      expect((await scope.tasks()).map((task) => task.state)).toEqual(["done", "done"]);
    });
  });
});
