import { describe, expect, it } from "vitest";
import { progressOf } from "../../../src/view/data.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

describe.each(STORE_KINDS)("a run's notices for viewers (%s)", (kind) => {
  it("keeps rate limiting once per spell, for the run page to show", async () => {
    await withRun(
      { rateLimit: { perSecond: 5, burst: 1 } },
      async (scope) => {
        const manifest = scope.write(
          "busy.yaml",
          `${fastSettings(scope.outputDir)}name: busy
jobs:
  - { id: shots, model: acme-image-2, prompt: "a mug", size: "1:1", resolution: 1k, repeat: 8 }
`,
        );
        const result = await scope.gwrun(["run", manifest]).done;
        expect(result.code, result.stderr).toBe(0);
        expect(scope.sim.counters().errors["429"]).toBeGreaterThan(0);
        const store = await scope.open();
        try {
          const run = await store.latestRun();
          const progress = await progressOf(store, run as NonNullable<typeof run>, Date.now());
          expect(progress.notices).toHaveLength(1);
          expect(progress.notices[0]).toMatchObject({
            type: "gateway:rate-limited",
            message: expect.stringMatching(
              /^the gateway is rate limiting; submitting at [\d.]+\/s$/,
            ),
          });
        } finally {
          await store.close();
        }
      },
      await runStoreOf(kind),
    );
  });
});
