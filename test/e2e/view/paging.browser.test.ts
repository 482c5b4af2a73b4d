import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/core/clock.js";
import { GALLERY_TASKS } from "../../../src/postprocess/gallery.js";
import { writeReport } from "../../../src/postprocess/index.js";
import { openStore, type SqliteStore } from "../../../src/store/index.js";
import { startViewServer } from "../../../src/view/index.js";
import { withChromium } from "../../helpers/chromium.js";
import { tempDir } from "../../helpers/manifest.js";
import { CHROMIUM, runsWith } from "../../helpers/system-tools.js";

/**
 * A finished run of `outputs` pictures written straight into a store (a run of this size
 * through the simulator would take minutes): one job, its tasks `shot-1`… in order, each
 * with one text output.
 */
async function finishedRun(
  dir: string,
  outputs: number,
): Promise<{ store: SqliteStore; runId: number }> {
  const store = openStore(path.join(dir, "gwrun.db"));
  const outputDir = path.join(dir, "out");
  mkdirSync(outputDir, { recursive: true });
  const runId = await store.createRun({
    name: "many",
    manifest_path: "many.yaml",
    manifest_text: "version: 1\n",
    base_url: "sim",
    output_dir: outputDir,
    started_at: 0,
  });
  const tasks = Array.from({ length: outputs }, (_, i) => ({
    key: createHash("sha256").update(`task ${i}`).digest("hex"),
    jobId: "shots",
    label: `shot-${i + 1}`,
    family: "image-a",
    lane: "image",
    endpoint: "/v1/images/generations",
    request: JSON.stringify({ model: "acme-image-2", prompt: `A mug, take ${i}` }),
    upstreamKey: null,
    estimatedCost: 0.1,
  }));
  await store.recordTasks(runId, tasks, 0);
  const insert = store.db.prepare(
    `INSERT INTO outputs (job_key, idx, state, path, bytes, sha256, content_type, downloaded_at)
     VALUES (?, 0, 'downloaded', ?, 10, ?, 'text/plain', 5)`,
  );
  store.db.transaction(() => {
    for (const task of tasks)
      insert.run(task.key, path.join(outputDir, `${task.label}.txt`), "0".repeat(64));
  })();
  store.db.exec("UPDATE jobs SET state = 'done', done_at = 6, updated_at = 6");
  store.db.prepare("UPDATE runs SET status = 'done', finished_at = 10 WHERE id = ?").run(runId);
  return { store, runId };
}

interface Doc {
  querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }>;
  querySelector(selector: string): { textContent: string | null } | null;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(runsWith(CHROMIUM))("gwrun view and the gallery in Chromium: a large run", () => {
  it("the grid shows a page of 1,000 outputs and its link leads to page 2 with the rest", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { store, runId } = await finishedRun(dir, 1005);
    const viewer = await startViewServer({
      store,
      project: dir,
      port: 0,
      token: "t",
      clock: systemClock,
    });
    try {
      await withChromium(async ({ page, problems }) => {
        const labels = () =>
          page.evaluate(() =>
            Array.from(
              (globalThis as unknown as { document: Doc }).document.querySelectorAll(
                "figure.item .label",
              ),
              (node) => node.textContent,
            ),
          );
        await page.goto(`${viewer.url}/runs/${runId}/outputs`, { waitUntil: "load" });
        const first = await labels();
        expect(first).toHaveLength(1000);
        expect(first).toContain("shot-1000");
        expect(first).not.toContain("shot-1001");
        expect(await page.textContent(".pages")).toContain("outputs 1–1000 of 1005 · page 1 of 2");
        await page.click(".pages a[rel=next]");
        await page.waitForURL(/page=2$/);
        expect((await labels()).sort()).toEqual([
          "shot-1001",
          "shot-1002",
          "shot-1003",
          "shot-1004",
          "shot-1005",
        ]);
        expect(await page.textContent(".pages")).toContain("outputs 1001–1005 of 1005");
        expect(problems).toEqual([]);
      });
    } finally {
      await viewer.close();
      await store.close();
    }
  });

  it("a gallery of more tasks than it holds says it shows the first of them and points to gwrun view", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const { store, runId } = await finishedRun(dir, GALLERY_TASKS + 2);
    try {
      const run = await store.run(runId);
      if (run === undefined) throw new Error("no run");
      const report = await writeReport(store, run, "run");
      expect(report.outputs).toBe(GALLERY_TASKS + 2);
      // Every output stays in the JSON Lines file.
      expect(readFileSync(report.results, "utf8").trim().split("\n")).toHaveLength(
        GALLERY_TASKS + 2,
      );
      expect(existsSync(report.gallery)).toBe(true);
      await withChromium(async ({ page }) => {
        await page.goto(`file://${report.gallery}`, { waitUntil: "load" });
        const shown = await page.evaluate(() => {
          const doc = (globalThis as unknown as { document: Doc }).document;
          return {
            cards: doc.querySelectorAll("article.task").length,
            notes: Array.from(doc.querySelectorAll("p.capped"), (node) => node.textContent),
          };
        });
        expect(shown.cards).toBe(GALLERY_TASKS);
        expect(shown.notes[0]).toBe(
          `This page shows the first ${GALLERY_TASKS} of ${GALLERY_TASKS + 2} tasks — see them all with gwrun view (every output is in the JSON Lines file beside this page).`,
        );
      });
    } finally {
      await store.close();
    }
  });
});
