import { describe, expect, it } from "vitest";
import { fastSettings, withRun } from "../../helpers/run.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";
import { VIEW_TOKEN, withViewerPage } from "../../helpers/viewer-page.js";

/**
 * The runs page says what each run did: a run stopped by its budget keeps its counts as they
 * were when it stopped, after a later run of the same manifest made the rest.
 */

const JOBS = (maxCost: number) =>
  `name: mugs
jobs:
  - { id: mugs, model: acme-image-2, prompt: "a ceramic mug", repeat: 5 }
`.replace("name: mugs", `limits: { max_cost: ${maxCost}, unknown_cost: 0.1 }\nname: mugs`);

describe.runIf(runsWith(CHROMIUM))("gwrun view in Chromium: the runs page", () => {
  it("shows a stopped run's counts as it stopped, and the run that made the rest as it ended", async () => {
    await withRun({}, async (scope) => {
      const settings = fastSettings(scope.outputDir).replace(/^limits:.*\n/m, "");
      const stopped = await scope.gwrun([
        "run",
        scope.write("mugs.yaml", `${settings}${JOBS(0.3)}`),
      ]).done;
      expect(stopped.code, stopped.stderr).toBe(3);
      const rest = await scope.gwrun(["run", scope.write("mugs.yaml", `${settings}${JOBS(1)}`)])
        .done;
      expect(rest.code, rest.stderr).toBe(0);
      await withViewerPage(scope, async ({ page, url }) => {
        await page.goto(`${url}/?token=${VIEW_TOKEN}`, { waitUntil: "load" });
        const rows = await page.$$eval("tr[data-run]", (found) =>
          found.map((row) =>
            Array.from(
              row.querySelectorAll("td"),
              (td) => (td as { textContent: string }).textContent,
            ),
          ),
        );
        const byRun = new Map(rows.map((cells) => [cells[0], cells[5]]));
        expect(byRun.get("1")).toBe("5 (3 done, 2 pending)");
        expect(byRun.get("2")).toBe("5 (5 done)");
      });
    });
  });
});
