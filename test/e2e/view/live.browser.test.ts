import { describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { startViewServer } from "../../../src/view/index.js";
import { withChromium } from "../../helpers/chromium.js";
import { withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { until } from "../../helpers/until.js";

/** Twelve pictures two at a time: at time scale 60 a picture takes about 0.75 s. */
const SLOW = (outputDir: string) => `version: 1
name: live
limits: { submit_rate: 50/s, max_in_flight: 2, downloads: 2, max_cost: 20 }
poll: { first_after: 100ms, every: 100ms, batch_size: 50 }
output: { dir: ${JSON.stringify(outputDir)} }
jobs:
  - { id: shots, model: acme-image-2, prompt: "a mug", size: "1:1", resolution: 1k, repeat: 12 }
`;

interface Doc {
  querySelector(selector: string): { textContent: string | null } | null;
}

describe.runIf(runsWith(CHROMIUM))("gwrun view in Chromium: a run under way", () => {
  it("changes the run page's counts without a reload and ends with the summary", async () => {
    await withRun({ timeScale: 60 }, async (scope) => {
      const store = await scope.open();
      const viewer = await startViewServer({
        store,
        project: scope.dir,
        port: 0,
        token: "t",
        clock: systemClock,
        everyMs: 100,
      });
      try {
        const running = scope.gwrun(["run", scope.write("live.yaml", SLOW(scope.outputDir))]);
        const run = await until("the run's record", () => store.latestRun(), { everyMs: 25 });
        await withChromium(async ({ page, problems }) => {
          await page.goto(`${viewer.url}/runs/${run?.id}`);
          await page.evaluate(() => {
            (globalThis as unknown as { stayed: boolean }).stayed = true;
          });
          const seen: string[] = [];
          // Every count the page shows on its way to the end.
          await until("the page to say the run finished", async () => {
            const now = await page.evaluate(() => {
              const doc = (globalThis as unknown as { document: Doc }).document;
              return {
                done: doc.querySelector('[data-count="done"]')?.textContent ?? "0",
                finished: doc.querySelector("#summary[data-finished]") !== null,
              };
            });
            if (seen.at(-1) !== now.done) seen.push(now.done);
            return now.finished;
          });
          expect((await running.done).code).toBe(0);
          // Counted up as tasks finished, at least once between the first look and the end.
          expect(seen.length).toBeGreaterThanOrEqual(2);
          expect(seen.at(-1)).toBe("12");
          expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((a, b) => a - b));
          expect(await page.textContent("#summary")).toMatch(
            /^Run done after .*: 12 tasks, 12 done, 0 failed; 12 outputs; paid /,
          );
          expect(
            await page.evaluate(() => (globalThis as unknown as { stayed?: boolean }).stayed),
          ).toBe(true);
          // The timeline has a bar per task.
          await page.waitForFunction(
            () =>
              (
                globalThis as unknown as {
                  document: { querySelectorAll(s: string): ArrayLike<unknown> };
                }
              ).document.querySelectorAll("#timeline .row").length === 12,
          );
          // The page closes its event stream at the summary, which may cut its last bytes.
          expect(problems.filter((problem) => !/^failed: .*\/events$/.test(problem))).toEqual([]);
        });
      } finally {
        await viewer.close();
        await store.close();
      }
    });
  });
});
