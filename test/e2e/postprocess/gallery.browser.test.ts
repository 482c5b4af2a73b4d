import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { withChromium } from "../../helpers/chromium.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { REVIEW_JOBS, readResults } from "./review.js";

describe.runIf(runsWith(CHROMIUM))("the gallery page in Chromium", () => {
  it("shows every thumbnail of a finished run from file://, with its counts and failures, and no errors", async () => {
    await withRun({}, async (scope) => {
      const manifest = scope.write(
        "gallery.yaml",
        `${fastSettings(scope.outputDir)}${REVIEW_JOBS}  - { id: unsafe, model: acme-image-2, prompt: "a forbidden mug", size: "1:1" }
`,
      );
      expect((await scope.gwrun(["run", manifest]).done).code).toBe(1);
      const results = readResults(scope.outputDir);
      expect(results).toHaveLength(3);

      await withChromium(async ({ page, problems }) => {
        await page.goto(pathToFileURL(path.join(scope.outputDir, "index.html")).href, {
          waitUntil: "load",
        });

        const thumbs = await page.$$eval("img.thumb", (images) =>
          images.map((img) => {
            // Typed by hand: the project compiles without the DOM library.
            const shown = img as unknown as { complete: boolean; naturalWidth: number };
            return {
              src: img.getAttribute("src"),
              loaded: shown.complete && shown.naturalWidth > 0,
            };
          }),
        );
        expect(thumbs).toHaveLength(3);
        expect(thumbs.filter((thumb) => !thumb.loaded)).toEqual([]);
        expect(thumbs.map((thumb) => thumb.src).sort()).toEqual(
          results.map((record) => record.thumbnail).sort(),
        );

        const count = (name: string) =>
          page.$eval(`[data-count="${name}"]`, (element) => element.textContent);
        // what the page counts are tasks, as everywhere else.
        expect(await count("tasks")).toBe("4");
        expect(await count("done")).toBe("3");
        expect(await count("rejected")).toBe("1");
        expect(await count("outputs")).toBe("3");
        // Tasks grouped by their manifest job.
        const groups = await page.$$eval("section.job", (sections) =>
          sections.map((section) => [
            section.querySelector("h2")?.textContent,
            section.querySelectorAll("article.task").length,
          ]),
        );
        expect(groups).toEqual([
          ["hero", 2],
          ["clip", 1],
          ["unsafe", 1],
        ]);
        expect(await page.$$eval(".badge.ok", (badges) => badges.length)).toBe(3);

        const failures = await page.$$eval(".failures li", (items) =>
          items.map((item) => item.textContent ?? ""),
        );
        expect(failures).toHaveLength(1);
        expect(failures[0]).toMatch(/^unsafe rejected .*safety filter/);

        // The prompt is shown as text, never run.
        const prompts = await page.$$eval(".prompt", (items) => items.map((p) => p.textContent));
        expect(prompts).toContain("A mug <script>alert('x')</script> & a cup");
        // Clips link to their file from their poster's thumbnail.
        expect(
          await page.$eval('a[href="clip/clip.mp4"] img.thumb', (img) => img.getAttribute("src")),
        ).toBe(".thumbs/clip/clip.webp");
        expect(problems).toEqual([]);
      });
    });
  });
});
