import { spawnSync } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/** docs/api.md's example, run as a reader runs it: node examples/run-campaign.mjs. */
describe("the API's example", () => {
  it("examples/run-campaign.mjs runs the demo manifest against the simulator through the API", () => {
    // A project of the reader's: its package.json marks the folder its record and outputs go in.
    const project = tempDir({ "package.json": "{}" });
    cpSync(path.join(ROOT, "manifests"), path.join(project, "manifests"), { recursive: true });
    const manifest = path.join(project, "manifests", "campaign.yaml");
    const ran = spawnSync(
      process.execPath,
      [path.join(ROOT, "examples", "run-campaign.mjs"), manifest],
      { cwd: project, encoding: "utf8", env: { PATH: process.env.PATH } },
    );
    expect(ran.stderr).toBe("");
    expect(ran.status).toBe(0);
    expect(ran.stdout).toMatch(/^spring-campaign: \d+ jobs, \d+ tasks$/m);
    expect(ran.stdout).toMatch(/^run 1: \d+ tasks$/m);
    expect(ran.stdout).toContain("done: teaser-of-hero-r1");
    expect(ran.stdout).toContain("ended: done, exit code 0");
    const outputs = ran.stdout.match(/outputs in (\S+)$/m)?.[1] as string;
    expect(existsSync(path.join(outputs, "index.html"))).toBe(true);
  });
});
