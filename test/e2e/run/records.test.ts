import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gridItems } from "../../../src/view/data.js";
import { fastSettings, withRun } from "../../helpers/run.js";
import { runStoreOf, STORE_KINDS } from "../../helpers/store.js";

/**
 * Every output's record says what a media sidecar says: a text answer's `<label>.json` has
 * its run, request, cost and ISO times; a delivered copy brings it along; the viewer's grid
 * heads its rows and columns with readable values.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const JOBS = (name: string) => `name: ${name}
jobs:
  - id: shots
    model: acme-image-2
    prompt: "a mug, {{style.words}}"
    size: "256x256"
    matrix: { style: [{ id: studio, words: "studio light" }, { id: kitchen, words: "on a counter" }] }
  - { id: words, endpoint: chat, model: acme-5, messages: [{ role: user, content: "A caption" }], stream: false }
`;

describe.each(STORE_KINDS)("output records (%s)", (kind) => {
  it("a text answer's record carries its times, and travels with a delivered copy", async () => {
    await withRun(
      {},
      async (scope) => {
        const first = scope.write("first.yaml", `${fastSettings("out/first")}${JOBS("first")}`);
        expect((await scope.gwrun(["run", first]).done).code).toBe(0);
        const record = JSON.parse(
          readFileSync(path.join(scope.dir, "out/first/words/words.json"), "utf8"),
        );
        expect(record).toMatchObject({
          job: "words",
          run: 1,
          request: { model: "acme-5" },
          submitted_at: expect.stringMatching(ISO),
          completed_at: expect.stringMatching(ISO),
        });
        expect(Date.parse(record.completed_at)).toBeGreaterThanOrEqual(
          Date.parse(record.submitted_at),
        );
        expect(record).toHaveProperty("cost");

        const second = scope.write("second.yaml", `${fastSettings("out/second")}${JOBS("second")}`);
        const copied = await scope.gwrun(["run", second]).done;
        expect(copied.code, copied.stderr).toBe(0);
        const there = path.join(scope.dir, "out/second/words/words.json");
        expect(existsSync(there)).toBe(true);
        expect(JSON.parse(readFileSync(there, "utf8"))).toEqual(record);

        const store = await scope.open();
        try {
          const run = await store.latestRun();
          if (run === undefined) throw new Error("no run");
          const shots = (await gridItems(store, run, [scope.dir])).outputs.filter(
            (item) => item.job === "shots",
          );
          expect(shots.map((item) => item.headings.style).sort()).toEqual(["kitchen", "studio"]);
        } finally {
          await store.close();
        }
      },
      await runStoreOf(kind),
    );
  });
});
