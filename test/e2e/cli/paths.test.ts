import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrunHere } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";

/** A project folder (marked by its package.json) with a manifest in `manifests/`. */
function project(): { root: string; manifest: string } {
  const root = tempDir({ "package.json": "{}\n" });
  mkdirSync(path.join(root, "manifests"));
  const manifest = path.join(root, "manifests", "shots.yaml");
  writeFileSync(
    manifest,
    `version: 1
name: shots
poll: { first_after: 1s, every: 1s }
output: { dir: "data/outputs/{name}", thumbnails: false }
jobs:
  - { id: hero, model: acme2.7-image, prompt: "A mug", size: "1024x1024" }
`,
  );
  return { root, manifest };
}

const FAST = { GW_API_KEY: "k", GWRUN_SIM_TIME_SCALE: "3600" };

describe("paths don't depend on where you stand", () => {
  it("runs a manifest from another folder into its project folder, and pays nothing the second time", async () => {
    const { root, manifest } = project();
    const elsewhere = tempDir();
    const first = await gwrunHere([manifest, "--json"], { cwd: elsewhere, env: FAST });
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(path.join(root, "data", "gwrun.db"))).toBe(true);
    expect(existsSync(path.join(root, "data", "outputs", "shots", "hero", "hero.png"))).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
    // From the project folder itself, the same state: nothing is submitted again.
    const again = await gwrunHere(["manifests/shots.yaml", "--json"], { cwd: root, env: FAST });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('"type":"task:submitted"');
    const status = await gwrunHere(["status"], { cwd: path.join(root, "manifests"), env: FAST });
    expect(status.stdout).toMatch(/1 done/);
  });

  it("status in a folder with no database says so and creates nothing", async () => {
    const empty = tempDir();
    const status = await gwrunHere(["status"], { cwd: empty });
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/no state database at .*gwrun\.db/);
    expect(readdirSync(empty)).toEqual([]);
  });
});
