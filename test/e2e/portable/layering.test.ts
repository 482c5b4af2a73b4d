import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/** `biome lint` of one file at `file` (below src/) under the project's lint rules. */
function lint(file: string, text: string): { code: number | null; output: string } {
  const dir = tempDir();
  const config = JSON.parse(readFileSync(path.join(ROOT, "biome.json"), "utf8"));
  config.vcs = { enabled: false };
  config.$schema = undefined;
  writeFileSync(path.join(dir, "biome.json"), JSON.stringify(config));
  mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
  writeFileSync(path.join(dir, file), text);
  const biome = path.join(ROOT, "node_modules/@biomejs/biome/bin/biome");
  const run = spawnSync(process.execPath, [biome, "lint", file], { cwd: dir, encoding: "utf8" });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe("the stage order, enforced by npm run lint", () => {
  it("fails a deep import into another stage's files", () => {
    const deep = lint("src/fleet/probe.ts", 'export { sendTask } from "../engine/submit.js";\n');
    expect(deep.code).not.toBe(0);
    expect(deep.output).toContain("Another stage is reached through its index.js only");
  });

  it("fails an import from a later stage", () => {
    const later = lint("src/engine/probe.ts", 'export { FleetWorker } from "../fleet/index.js";\n');
    expect(later.code).not.toBe(0);
    expect(later.output).toContain("src/engine does not use src/fleet");
  });

  it("lets a stage's folders use each other's files, and fails their deep imports elsewhere", () => {
    const own = lint(
      "src/store/sqlite/probe.ts",
      'export { TASK_COLUMNS } from "../queries/tasks.js";\n',
    );
    expect(own.output).not.toContain("noRestrictedImports");
    const deep = lint(
      "src/store/sqlite/probe.ts",
      'export { hashOf } from "../../gateway/batch.js";\n',
    );
    expect(deep.output).toContain("Another stage is reached through its index.js only");
  });

  it("lets a stage use an earlier one through its index", () => {
    const fine = lint("src/fleet/probe.ts", 'export { sendTask } from "../engine/index.js";\n');
    expect(fine.output).not.toContain("noRestrictedImports");
  });
});
