import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { fastSettings, type RunScope, withRun } from "../../helpers/run.js";
import { CAPTIONED_SHOTS } from "../../helpers/run-manifests.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { VIEW_TOKEN, withViewerPage } from "../../helpers/viewer-page.js";

/** A finished run of CAPTIONED_SHOTS, its viewer, and a Chromium page holding the viewer's token. */
async function withViewer(
  fn: (context: {
    scope: RunScope;
    store: Store;
    page: Page;
    url: string;
    problems: string[];
  }) => Promise<void>,
): Promise<void> {
  await withRun({}, async (scope) => {
    const manifest = scope.write(
      "captioned.yaml",
      `${fastSettings(scope.outputDir)}${CAPTIONED_SHOTS}`,
    );
    const run = await scope.gwrun(["run", manifest]).done;
    expect(run.code, run.stderr).toBe(0);
    await withViewerPage(scope, async ({ store, page, url, problems }) => {
      await page.goto(`${url}/?token=${VIEW_TOKEN}`);
      await fn({ scope, store, page, url, problems });
    });
  });
}

describe.runIf(runsWith(CHROMIUM))(
  "gwrun view: the review loop's keys, captions and colours",
  () => {
    it("Enter in the note field rejects with the note (no key is typed into it), and a hint says which keys work where", async () => {
      await withViewer(async ({ store, page, url, problems }) => {
        await page.goto(`${url}/runs/1/outputs`, { waitUntil: "load" });
        const ids = await page.$$eval('section[data-job="shots"] figure.item', (items) =>
          items.map((item) => (item as unknown as { dataset: { id: string } }).dataset.id),
        );
        await page.click(`figure.item[data-id="${ids[0]}"] img.thumb`);
        const hint = () => page.textContent("#viewer-keys");
        expect(await hint()).toContain("a approve, r reject");
        await page.click("#note");
        expect(await hint()).toBe("in the note: Enter rejects with this note, Esc leaves the note");
        await page.keyboard.type("too dark");
        await page.keyboard.press("Enter");
        await page.waitForSelector(`figure.item[data-id="${ids[0]}"][data-review="rejected"]`);
        expect(await page.textContent("#viewer-decision")).toBe("rejected: too dark");
        // The note field is left: the grid's keys work again, and the hint says so.
        expect(await hint()).toContain("a approve, r reject");
        await page.keyboard.press("ArrowRight");
        await page.waitForFunction(
          (label) =>
            (
              globalThis as unknown as {
                document: { querySelector(s: string): { textContent: string } | null };
              }
            ).document.querySelector("#viewer-title")?.textContent === label,
          await page.textContent(`figure.item[data-id="${ids[1]}"] .label`),
        );
        await page.keyboard.press("a");
        await page.waitForSelector(`figure.item[data-id="${ids[1]}"][data-review="approved"]`);
        const reviews = await store.reviewsOf({ run: 1 });
        expect(reviews.map((review) => [review.decision, review.note])).toEqual([
          ["rejected", "too dark"],
          ["approved", null],
        ]);
        expect(problems).toEqual([]);
      });
    });

    it("a caption's cell shows its words, and the viewer shows the picture it was written from", async () => {
      await withViewer(async ({ scope, page, url, problems }) => {
        const tasks = await scope.tasks();
        const captions = tasks.filter((task) => task.job_id === "captions");
        expect(captions).toHaveLength(2);
        await page.goto(`${url}/runs/1/outputs`, { waitUntil: "load" });
        const cells = await page.$$eval('section[data-job="captions"] figure.item', (items) =>
          items.map((item) => [
            (item as unknown as { dataset: { id: string } }).dataset.id,
            item.querySelector("button.thumb")?.textContent ?? "",
          ]),
        );
        const words = (file: string | null | undefined) =>
          readFileSync(file ?? "", "utf8")
            .replace(/\s+/g, " ")
            .trim();
        expect(Object.fromEntries(cells)).toEqual(
          Object.fromEntries(
            captions.map((task) => [`${task.key}/0`, words(task.outputs[0]?.path)]),
          ),
        );
        for (const [, text] of cells) expect(text).not.toBe("text");

        const caption = captions[0];
        await page.click(`figure.item[data-id="${caption?.key}/0"] button.thumb`);
        await page.waitForFunction(() => {
          const image = (
            globalThis as unknown as {
              document: { querySelector(s: string): { naturalWidth: number } | null };
            }
          ).document.querySelector("#viewer-media .upstream img");
          return (image?.naturalWidth ?? 0) > 0;
        });
        // The page's token goes with a file's address, for one read back from storage.
        expect(await page.getAttribute("#viewer-media .upstream img", "src")).toMatch(
          new RegExp(`^/files/${caption?.upstream_key}/0/file(\\?token=[\\w-]+)?$`),
        );
        const upstream = tasks.find((task) => task.key === caption?.upstream_key);
        expect(await page.textContent("#viewer-media .upstream figcaption")).toBe(
          `written from ${upstream?.label}`,
        );
        expect(await page.textContent("#viewer-media pre.answer")).toBe(
          readFileSync(caption?.outputs[0]?.path ?? "", "utf8"),
        );
        expect(problems).toEqual([]);
      });
    });

    it("a later run's page shows only its own tasks on its own time and rate; provenance names the run that made an output; a rejected cell is framed in the rejection red", async () => {
      await withViewer(async ({ scope, store, page, url, problems }) => {
        const firstTasks = await scope.tasks();
        // Time passes between the runs: the second run's page must not span it.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const more = scope.write(
          "more.yaml",
          `${fastSettings(scope.outputDir)}${CAPTIONED_SHOTS}  - { id: extra, model: acme-image-2, prompt: "a cup", size: "1:1", resolution: 1k }\n`,
        );
        const second = await scope.gwrun(["run", more]).done;
        expect(second.code, second.stderr).toBe(0);
        const run2 = await store.run(2);
        const extra = (await scope.tasks()).filter((task) => task.job_id === "extra");
        expect(extra).toHaveLength(1);

        await page.goto(`${url}/runs/2`, { waitUntil: "load" });
        await page.waitForSelector("#timeline .row");
        expect(
          await page.$$eval("#timeline .row", (rows) =>
            rows.map((row) => (row as unknown as { dataset: { key: string } }).dataset.key),
          ),
        ).toEqual(extra.map((task) => task.key));
        const timeline = (await (await fetch(`${url}/api/runs/2/timeline`)).json()) as {
          tasks: { queued_at: number }[];
        };
        expect(Math.min(...timeline.tasks.map((row) => row.queued_at))).toBeGreaterThanOrEqual(
          run2?.started_at ?? Number.POSITIVE_INFINITY,
        );
        const progress = (await (await fetch(`${url}/api/runs/2/progress`)).json()) as {
          rate: number;
          elapsed: number;
        };
        // One task finished in this run: its rate, not that of the first run's five as well.
        expect(progress.rate).toBe(Math.round((1 / progress.elapsed) * 60_000 * 10) / 10);

        // Provenance: the first run's output says run 1, in its sidecar and in the viewer.
        const shot = firstTasks.find((task) => task.job_id === "shots");
        const sidecar = JSON.parse(readFileSync(`${shot?.outputs[0]?.path}.json`, "utf8"));
        expect([sidecar.run, sidecar.output]).toEqual([1, 1]);
        const extraSidecar = JSON.parse(readFileSync(`${extra[0]?.outputs[0]?.path}.json`, "utf8"));
        expect(extraSidecar.run).toBe(2);
        const detail = (await (await fetch(`${url}/api/outputs/${shot?.key}/0`)).json()) as {
          provenance: { run: number };
        };
        expect(detail.provenance.run).toBe(1);

        await page.goto(`${url}/runs/1/outputs`, { waitUntil: "load" });
        const cell = `figure.item[data-id="${shot?.key}/0"]`;
        await page.click(`${cell} button.reject`);
        await page.waitForSelector(`${cell}[data-review="rejected"]`);
        expect(
          await page.$eval(
            cell,
            (node) =>
              (
                globalThis as unknown as {
                  getComputedStyle(node: unknown): { borderTopColor: string };
                }
              ).getComputedStyle(node).borderTopColor,
          ),
        ).toBe("rgb(179, 38, 30)");
        expect(problems).toEqual([]);
      });
    });
  },
);
