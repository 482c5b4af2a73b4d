import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun, gwrunProcess } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";

/**
 * Most CLI tests run the command line in the test's own process (`gwrun`), which they can
 * trust only while it answers as the built binary does: same exit code, same stdout, same
 * stderr, for commands that succeed, fail, read stdin and read the environment.
 */

const BROKEN = `version: 1
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug, size: "16:9", resolution: 3k }
`;

describe("the command line run in-process", () => {
  it("answers as the built binary does, byte for byte", async () => {
    const dir = tempDir({ "broken.yaml": BROKEN });
    const cases: { args: string[]; input?: string; env?: NodeJS.ProcessEnv }[] = [
      { args: ["--version"] },
      { args: ["validate", "manifests/campaign.yaml", "--json"] },
      { args: ["plan", "manifests/campaign.yaml", "--json", "--db", path.join(dir, "none.db")] },
      { args: ["validate", path.join(dir, "broken.yaml")] },
      { args: ["validate", "-"], input: BROKEN },
      { args: ["status", "--db", path.join(dir, "none.db")] },
      {
        args: ["plan", "manifests/campaign.yaml", "--db", path.join(dir, "none.db")],
        env: { COLUMNS: "80" },
      },
      { args: ["nosuchcommand.yaml"] },
      { args: ["completion", "fish"] },
    ];
    const codes = new Set<number | null>();
    for (const { args, input, env } of cases) {
      const spawned = gwrunProcess(args, { input, env });
      const here = await gwrun(args, { input, env });
      expect({ args, ...here }).toEqual({ args, ...spawned });
      expect(spawned.stdout + spawned.stderr).not.toBe("");
      codes.add(spawned.code);
    }
    // Successes, and failures of several kinds.
    expect([...codes].sort()).toEqual([0, 2]);
  });
});
