import { describe, expect, it } from "vitest";
import type { NewTask, Store } from "../../../src/store/index.js";
import { startViewServer } from "../../../src/view/index.js";
import { withChromium } from "../../helpers/chromium.js";
import { ManualClock } from "../../helpers/clock.js";
import { tempDir } from "../../helpers/manifest.js";
import { completeTask, openTestStore } from "../../helpers/store.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";

const DAY = 86_400_000;
const FIRST = Date.UTC(2024, 2, 1, 12);

const priced = (key: string, jobId: string, estimatedCost: number): NewTask => ({
  key,
  jobId,
  label: key,
  family: "image-a",
  lane: "image",
  endpoint: "/v1/images/generations",
  request: JSON.stringify({ model: "acme-image-2", prompt: "p" }),
  upstreamKey: null,
  estimatedCost,
});

/** Run 1 pays for two jobs on 1 March; run 2 for one task on 2 March (0.25 each, by the gateway). */
async function twoDays(store: Store, first: number): Promise<void> {
  await store.recordTasks(
    first,
    [priced("hero-1", "hero", 0.2), priced("hero-2", "hero", 0.2), priced("fast-1", "fast", 0.25)],
    1,
  );
  for (const key of ["hero-1", "hero-2", "fast-1"]) await completeTask(store, key, FIRST);
  const second = await store.createRun({
    name: "t",
    manifest_path: "/m.yaml",
    manifest_text: "version: 1",
    base_url: "sim",
    output_dir: "/out",
    started_at: 2,
  });
  await store.recordTasks(second, [priced("late-1", "late", 0.25)], 2);
  await completeTask(store, "late-1", FIRST + DAY);
}

interface Doc {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
}

describe.runIf(runsWith(CHROMIUM))("gwrun view in Chromium: cost", () => {
  it("a run's page shows what it paid by job beside the estimates, and a bar per day", async () => {
    const { store, runId } = await openTestStore();
    await twoDays(store, runId);
    const viewer = await startViewServer({
      store,
      project: tempDir(),
      port: 0,
      token: "t",
      clock: new ManualClock(),
    });
    try {
      await withChromium(async ({ page, problems }) => {
        await page.goto(`${viewer.url}/runs/${runId}`);
        await page.waitForSelector("#cost-by-job tr[data-job]");
        const rows = await page.evaluate(() =>
          Array.from(
            (globalThis as unknown as { document: Doc }).document.querySelectorAll(
              "#cost-by-job tr[data-job]",
            ),
            (row) => row.textContent,
          ),
        );
        expect(rows).toEqual(["hero20.500.40+0.10", "fast10.250.25"]);
        expect(await page.textContent("#cost-total")).toBe("spent 0.75, estimated 0.65");
        const days = await page.evaluate(() =>
          Array.from(
            (globalThis as unknown as { document: Doc }).document.querySelectorAll(
              "#cost-days .day",
            ),
            (day) => day.textContent,
          ),
        );
        expect(days).toEqual(["03-01", "03-02"]);
        expect(problems).toEqual([]);
      });
    } finally {
      await viewer.close();
      await store.close();
    }
  });
});

describe("gwrun view: cost", () => {
  it("a run's cost panel is read on the server: by job for the run, by day for the store", async () => {
    const { store, runId } = await openTestStore();
    await twoDays(store, runId);
    const viewer = await startViewServer({
      store,
      project: tempDir(),
      port: 0,
      token: "t",
      clock: new ManualClock(),
    });
    try {
      const panel = await (await fetch(`${viewer.url}/api/runs/${runId}/cost`)).json();
      expect(panel).toEqual({
        run: {
          spent: 0.75,
          estimate: 0.65,
          atUnknownCost: 0,
          unpriced: 0,
          groups: [
            { key: "hero", spent: 0.5, estimate: 0.4, atUnknownCost: 0, unpriced: 0, tasks: 2 },
            { key: "fast", spent: 0.25, estimate: 0.25, atUnknownCost: 0, unpriced: 0, tasks: 1 },
          ],
        },
        days: [
          {
            key: "2024-03-01",
            spent: 0.75,
            estimate: 0.65,
            atUnknownCost: 0,
            unpriced: 0,
            tasks: 3,
          },
          {
            key: "2024-03-02",
            spent: 0.25,
            estimate: 0.25,
            atUnknownCost: 0,
            unpriced: 0,
            tasks: 1,
          },
        ],
      });
    } finally {
      await viewer.close();
      await store.close();
    }
  });
});
