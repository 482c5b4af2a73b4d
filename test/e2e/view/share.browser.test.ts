import { describe, expect, it } from "vitest";
import { withChromium } from "../../helpers/chromium.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { viewUrl } from "../../helpers/view-url.js";

const JOBS = `name: two
jobs:
  - { id: mugs, model: acme-image-2, prompt: "a mug", size: "1:1", resolution: 1k, repeat: 2 }
`;

describe.runIf(runsWith(CHROMIUM))("a shared gwrun view in Chromium", () => {
  it("opens from a reviewer's link alone (styles, scripts, thumbnails), approves, and shows who approved", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write("two.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const view = scope.spawn(["view", "--share"]);
      try {
        const base = new URL(await viewUrl(view.child));
        const invited = await scope.gwrun(["view", "invite", "anna", "--port", base.port]).done;
        expect(invited.code, invited.stderr).toBe(0);
        const link = invited.stdout.trim();
        await withChromium(async ({ page, problems }) => {
          await page.goto(link);
          expect(await page.textContent("nav .reviewer")).toBe("reviewing as anna");
          // The token left the address bar; the cookie carries the next pages.
          expect(page.url()).toBe(`${base.origin}/`);
          await page.goto(`${base.origin}/runs/1/outputs`, { waitUntil: "load" });
          await page.waitForFunction(() => {
            const doc = (
              globalThis as unknown as {
                document: { querySelectorAll(s: string): ArrayLike<{ naturalWidth: number }> };
              }
            ).document;
            const images = Array.from(doc.querySelectorAll("img.thumb"));
            return images.length === 2 && images.every((img) => img.naturalWidth > 0);
          });
          const id = await page.$eval(
            "figure.item",
            (item) => (item as unknown as { dataset: { id: string } }).dataset.id,
          );
          await page.click(`figure.item[data-id="${id}"] button.approve`);
          await page.waitForSelector(`figure.item[data-id="${id}"][data-review="approved"]`);
          expect(await page.textContent(`figure.item[data-id="${id}"] .decision`)).toBe(
            "approved by anna",
          );
          // Read again from the store: the name is the record's, not only the page's.
          await page.reload({ waitUntil: "load" });
          expect(await page.textContent(`figure.item[data-id="${id}"] .decision`)).toBe(
            "approved by anna",
          );
          expect(problems).toEqual([]);
        });
        const store = await scope.open();
        try {
          expect(
            (await store.reviewsOf({ run: 1 })).map((row) => [row.decision, row.reviewer]),
          ).toEqual([["approved", "anna"]]);
        } finally {
          await store.close();
        }
      } finally {
        view.child.kill("SIGINT");
      }
      expect((await view.done).code).toBe(0);
    });
  });
});
