import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { startViewServer } from "../../../src/view/index.js";
import { withChromium } from "../../helpers/chromium.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";

/** Four pictures in a 2 × 2 matrix and a clip. */
const JOBS = `name: grid
jobs:
  - id: styles
    model: acme-image-2
    matrix: { style: [watercolor, clay], size: ["1:1", "16:9"] }
    prompt: "a mug, {{style}} style"
    resolution: 1k
  - { id: clip, model: acme2.6, prompt: "A mug on a terrace", aspect_ratio: "16:9", resolution: 720p, duration: 5 }
`;

/** The page's document, typed by hand: the project compiles without the DOM library. */
interface Doc {
  querySelectorAll(selector: string): ArrayLike<{ naturalWidth: number }>;
  querySelector(selector: string): { readyState: number; textContent: string | null } | null;
  activeElement: { blur(): void } | null;
}

/** In the page: `count` thumbnails, every one decoded. */
function allDecoded(count: number): boolean {
  const doc = (globalThis as unknown as { document: Doc }).document;
  const images = Array.from(doc.querySelectorAll("img.thumb"));
  return images.length === count && images.every((img) => img.naturalWidth > 0);
}

const files = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();

describe.runIf(runsWith(CHROMIUM))("gwrun view in Chromium: review and regenerate", () => {
  it("shows every output decoded and clips playable; two rejections with notes are stored; retry --rejected makes exactly two new takes shown beside them; export copies the approved", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write("grid.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(0);
      const store = await scope.open();
      const viewer = await startViewServer({
        store,
        project: scope.dir,
        port: 0,
        token: "t0ken",
        clock: systemClock,
      });
      try {
        await withChromium(async ({ page, problems }) => {
          await page.goto(`${viewer.url}/?token=t0ken`);
          expect(await page.$$eval("tr[data-run]", (rows) => rows.length)).toBe(1);
          await page.goto(`${viewer.url}/runs/1/outputs`, { waitUntil: "load" });

          const decoded = () =>
            page.$$eval("img.thumb", (images) =>
              images.map((img) => {
                const shown = img as unknown as { complete: boolean; naturalWidth: number };
                return shown.complete && shown.naturalWidth > 0;
              }),
            );
          await page.waitForFunction(allDecoded, 5);
          expect(await decoded()).toEqual([true, true, true, true, true]);
          // The matrix grid: the style down, the size across.
          expect(
            await page.$$eval('section[data-job="styles"] tbody th', (cells) =>
              cells.map((cell) => cell.textContent),
            ),
          ).toEqual(["watercolor", "clay"]);

          // The clip plays in the viewer.
          await page.click('section[data-job="clip"] img.thumb');
          await page.waitForFunction(
            () =>
              ((globalThis as unknown as { document: Doc }).document.querySelector("#viewer video")
                ?.readyState ?? 0) >= 2,
          );
          await page.keyboard.press("Escape");

          // Two rejections with notes: one by key, one by click.
          const ids = await page.$$eval('section[data-job="styles"] figure.item', (items) =>
            items.map((item) => (item as unknown as { dataset: { id: string } }).dataset.id),
          );
          await page.click(`figure.item[data-id="${ids[0]}"] img.thumb`);
          await page.fill("#note", "too dark");
          await page.evaluate(() =>
            (globalThis as unknown as { document: Doc }).document.activeElement?.blur(),
          );
          await page.keyboard.press("r");
          await page.waitForSelector(`figure.item[data-id="${ids[0]}"][data-review="rejected"]`);
          await page.keyboard.press("ArrowRight");
          await page.waitForFunction(
            () =>
              (globalThis as unknown as { document: Doc }).document.querySelector("#viewer-title")
                ?.textContent === "styles-e2",
          );
          await page.fill("#note", "wrong colour");
          await page.click("#reject");
          await page.waitForSelector(`figure.item[data-id="${ids[1]}"][data-review="rejected"]`);
          await page.keyboard.press("Escape");
          // The rest approved from the grid.
          for (const id of [ids[2], ids[3]]) {
            await page.click(`figure.item[data-id="${id}"] button.approve`);
            await page.waitForSelector(`figure.item[data-id="${id}"][data-review="approved"]`);
          }
          const reviews = await store.reviewsOf({ run: 1 });
          expect(
            reviews
              .filter((review) => review.decision === "rejected")
              .map((review) => [`${review.job_key}/${review.idx}`, review.note]),
          ).toEqual([
            [ids[0], "too dark"],
            [ids[1], "wrong colour"],
          ]);
          expect(reviews.filter((review) => review.decision === "approved")).toHaveLength(2);

          const before = scope.sim.counters().submits.accepted;
          const retry = await scope.gwrun(["retry", "--rejected"]).done;
          expect(retry.code, retry.stderr).toBe(0);
          expect(scope.sim.counters().submits.accepted - before).toBe(2);

          await page.reload({ waitUntil: "load" });
          await page.waitForFunction(allDecoded, 7);
          // Each new take sits in the cell of the output it replaces.
          const cells = await page.$$eval("td", (tds) =>
            tds.map((td) =>
              [...td.querySelectorAll("figure.item")].map(
                (item) =>
                  `${item.querySelector(".label")?.textContent} ${(item as unknown as { dataset: { review: string } }).dataset.review}`,
              ),
            ),
          );
          expect(cells.filter((cell) => cell.length === 2)).toEqual([
            ["styles-e1 rejected", "styles-e1-t2 "],
            ["styles-e2 rejected", "styles-e2-t2 "],
          ]);
          expect(problems).toEqual([]);
        });

        const delivery = path.join(scope.dir, "delivery");
        expect((await scope.gwrun(["export", "--approved", delivery]).done).code).toBe(0);
        const approved = (await scope.tasks())
          .filter((task) => task.job_id === "styles" && task.take === 1)
          .slice(2)
          .map((task) => path.relative(scope.outputDir, task.outputs[0]?.path ?? ""));
        expect(files(delivery)).toEqual(
          [
            ...approved,
            ...approved.map((file) => `${file}.json`),
            // Each exported picture's XMP marking, beside it (docs/outputs.md).
            ...approved.map((file) => `${file}.xmp`),
            "review.csv",
          ].sort(),
        );
      } finally {
        await viewer.close();
        await store.close();
      }
    });
  });
});
