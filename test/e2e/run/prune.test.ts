import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Store } from "../../../src/store/index.js";
import { timelineItems } from "../../../src/view/data.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

/** Four pictures and a clip, one of each in a matrix. */
const JOBS = `name: prune
jobs:
  - { id: shots, model: acme-image-2, prompt: "a mug, {{style}}", size: "1:1", resolution: 1k, matrix: { style: [ink, clay, photo, watercolor] } }
  - { id: clip, model: acme2.6, prompt: "A mug on a terrace", aspect_ratio: "16:9", resolution: 720p, duration: 5 }
`;

/** What a person and a script read of the finished run: status, report files, sidecars, timeline. */
async function whatIsShown(scope: RunScope): Promise<Record<string, unknown>> {
  const status = await scope.gwrun(["status", "1", "--json"]).done;
  expect(status.code, status.stderr).toBe(0);
  const report = await scope.gwrun(["report", "1"]).done;
  expect(report.code, report.stderr).toBe(0);
  const files = Object.fromEntries(
    filesBelow(scope.outputDir)
      .filter((file) => /\.(json|jsonl|html)$/.test(file))
      .sort()
      .map((file) => [file, readFileSync(path.join(scope.outputDir, file), "utf8")]),
  );
  const store: Store = await scope.open();
  try {
    const run = await store.run(1);
    if (run === undefined) throw new Error("no run 1");
    const timeline = await timelineItems(store, run, {
      page: 1,
      order: "recorded",
      undoneOnly: false,
    });
    // A fleet's workers age between two readings: only what they did is compared.
    const { fleet, ...shown } = JSON.parse(status.stdout);
    return { status: shown, submits: fleet?.submits ?? null, files, timeline };
  } finally {
    await store.close();
  }
}

describe.each(STORE_KINDS)("gwrun prune (%s)", (kind) => {
  it("dropping the logged moves of a finished run leaves status, report, sidecars and timeline as they were", async () => {
    await withRun(
      {},
      async (scope) => {
        const manifest = scope.write("prune.yaml", `${fastSettings(scope.outputDir)}${JOBS}`);
        const run = await scope.gwrun(["run", manifest]).done;
        expect(run.code, run.stderr).toBe(0);
        const before = await whatIsShown(scope);
        expect(
          Object.keys(before.files as object).filter((f) => f.endsWith(".png.json")).length,
        ).toBe(4);

        const pruned = await scope.gwrun(["prune"]).done;
        expect(pruned.code, pruned.stderr).toBe(0);
        // Five tasks, each logged at every move: at least three moves apiece.
        const removed = Number(/^pruned (\d+) logged task moves/.exec(pruned.stdout)?.[1]);
        expect(removed).toBeGreaterThanOrEqual(15);
        expect(await whatIsShown(scope)).toEqual(before);

        const again = await scope.gwrun(["prune"]).done;
        expect(again.stdout).toMatch(/^pruned 0 logged task moves of finished runs/);
      },
      await runStoreOf(kind),
    );
  });
});
