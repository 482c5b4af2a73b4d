import path from "node:path";
import { describe, expect, it } from "vitest";
import { inspectSqlite } from "../../../../src/store/index.js";
import { gwrunAsync } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";

/**
 * Where better-sqlite3's addon was built for another Node (Node 22 and 24 in CI, whose
 * `npm run test:portable` runs this file), a run stops with what to do, not a stack.
 */
const addonLoads = inspectSqlite().ok;

const MANIFEST = `version: 1
name: shots
gateway: { base_url: sim }
output: { dir: out, thumbnails: false }
jobs:
  - { id: hero, model: acme2.7-image, prompt: "A mug", size: "1024x1024" }
`;

describe("a Node that cannot load better-sqlite3's addon", () => {
  it.runIf(!addonLoads)(
    "gwrun run exits 5 naming the addon, this Node and the fix, without a stack",
    async () => {
      const dir = tempDir({ "shots.yaml": MANIFEST });
      const run = await gwrunAsync(["run", "shots.yaml", "--db", path.join(dir, "state.db")], {
        cwd: dir,
        env: { GW_API_KEY: "k" },
      }).done;
      expect(run.code).toBe(5);
      expect(run.stderr).toContain(
        `gwrun: ${inspectSqlite().driver} cannot load its native addon in Node ${process.versions.node}: it was built for another Node version\n`,
      );
      expect(run.stderr).toContain("  run `npm rebuild better-sqlite3` under this Node");
      expect(run.stderr).not.toContain("    at ");
    },
  );

  it.runIf(!addonLoads)("gwrun doctor exits 1 with SQLite as the one tool that fails", async () => {
    const doctor = await gwrunAsync(["doctor", "--json"], { cwd: tempDir() }).done;
    expect(doctor.code).toBe(1);
    const report = JSON.parse(doctor.stdout);
    expect(report).toMatchObject({
      ok: false,
      node: { version: process.version },
      ffmpeg: { ok: true },
      ffprobe: { ok: true },
      sharp: { ok: true },
      sqlite: { ok: false },
    });
  });
});
