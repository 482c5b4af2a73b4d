import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/root.js";

const VITEST = path.join(ROOT, "node_modules/vitest/vitest.mjs");
const CONFIG = "test/fixtures/layers/vitest.config.ts";

describe("the unit project's refusal of child processes", () => {
  it("a unit test that starts a process fails, saying where its file belongs", () => {
    const run = spawnSync(process.execPath, [VITEST, "run", "-c", CONFIG], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(1);
    expect(output).toContain(`"${process.execPath} -e "`);
    expect(output).toContain("so its file belongs under test/e2e");
    expect(output).toMatch(/Tests\s+1 failed \| 1 passed/);
  });
});
