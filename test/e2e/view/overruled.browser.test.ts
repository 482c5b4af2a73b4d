import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { VIEW_TOKEN, withViewerPage } from "../../helpers/viewer-page.js";

/** A judge's "yes" that a person rejected reads "overruled" in gwrun view, as in the gallery. */

const JOBS = `name: judged
jobs:
  - id: mugs
    model: acme-image-2
    prompt: "a ceramic mug"
    repeat: 2
    checks:
      judge: { model: acme-5, endpoint: responses, ask: "A whole mug?", pass: { starts_with: "yes" } }
`;

describe.runIf(runsWith(CHROMIUM))("gwrun view in Chromium: overruled suggestions", () => {
  it("marks the judge's suggestion overruled where a person decided otherwise, and only there", async () => {
    await withRun({ judgeNoShare: 0 }, async (scope) => {
      const manifest = scope.write("judged.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
      const ran = await scope.gwrun(["run", manifest]).done;
      expect(ran.code, ran.stderr).toBe(0);
      await withViewerPage(scope, async ({ store, page, url }) => {
        const [first, second] = await store.tasksOf(1);
        // The judge said yes to both; a person rejects the first and approves the second.
        await store.recordReview(
          { key: first?.key ?? "", index: 0, decision: "rejected", note: null },
          1,
        );
        await store.recordReview(
          { key: second?.key ?? "", index: 0, decision: "approved", note: null },
          1,
        );
        await page.goto(`${url}/runs/1/outputs?token=${VIEW_TOKEN}`, { waitUntil: "load" });
        await page.waitForSelector(".badge.judge");
        const badges = await page.$$eval(`figure.item`, (items) =>
          items.map((item) => ({
            id: (item as unknown as { dataset: { id: string } }).dataset.id,
            judge: item.querySelector(".badge.judge")?.textContent ?? "",
          })),
        );
        const byKey = new Map(badges.map((badge) => [badge.id.split("/")[0], badge.judge]));
        expect(byKey.get(first?.key)).toBe("judge suggests: yes (overruled)");
        expect(byKey.get(second?.key)).toBe("judge suggests: yes");
      });
    });
  });
});
