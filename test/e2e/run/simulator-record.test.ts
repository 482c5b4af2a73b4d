import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { QUICK, withProject } from "../../helpers/project.js";

const SHOTS = `${QUICK}name: shots
gateway: { base_url: "\${GW_BASE_URL:-sim}" }
jobs:
  - { id: hero, model: acme-image-2, prompt: "a mug", size: "1:1" }
`;

describe("the record says which outputs the built-in simulator made", () => {
  it("results.jsonl, the sidecars and the gallery mark the simulator's outputs, and only those", async () => {
    await withProject("sqlite", async (scope) => {
      const manifest = scope.write("shots.yaml", SHOTS);
      // GW_BASE_URL unset: the built-in simulator stands in.
      expect((await scope.gwrun(["run", manifest], { builtIn: true })).code).toBe(0);
      const folder = path.join(scope.project, "data/outputs/shots");
      const [row] = readFileSync(path.join(folder, "results.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(row).toMatchObject({ simulator: true });
      const sidecar = JSON.parse(readFileSync(path.join(folder, "hero/hero.png.json"), "utf8"));
      expect(sidecar).toMatchObject({ simulator: true });
      const gallery = readFileSync(path.join(folder, "index.html"), "utf8");
      expect(gallery).toContain("talked to the built-in simulator: its outputs are stand-ins");
      expect(gallery).toContain('<span class="badge sim">simulator</span>');

      // A gateway of its own (here the test's, at an address): nothing says simulator.
      writeFileSync(path.join(scope.project, manifest), SHOTS.replace("a mug", "a cup"));
      expect((await scope.gwrun(["run", manifest])).code).toBe(0);
      const rows = readFileSync(path.join(folder, "results.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(rows.map((one) => one.simulator)).toEqual([false]);
      const fresh = JSON.parse(readFileSync(path.join(folder, "hero/hero-v2.png.json"), "utf8"));
      expect(fresh).toMatchObject({ simulator: false });
      expect(readFileSync(path.join(folder, "index.html"), "utf8")).not.toContain("badge sim");
    });
  });
});
