import { cpSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun, ROOT } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/manifest.js";
import { testDatabase } from "../../helpers/postgres.js";
import { fastSettings, filesBelow, type RunScope, withRun } from "../../helpers/run.js";
import { STORE_KINDS } from "../../helpers/store.js";

/** Through the CLI: the products example run against the simulator. */

/** manifests/products.yaml with fast settings, its CSV and prompt file beside it in the scope. */
function productsManifest(scope: RunScope, captions: boolean): string {
  const example = readFileSync(path.join(ROOT, "manifests/products.yaml"), "utf8");
  const jobs = example.slice(example.indexOf("x-caption:"));
  cpSync(path.join(ROOT, "manifests/products.csv"), path.join(scope.dir, "products.csv"));
  cpSync(path.join(ROOT, "manifests/prompts"), path.join(scope.dir, "prompts"), {
    recursive: true,
  });
  const text = `${fastSettings(scope.outputDir)}name: products\n${jobs}`;
  return scope.write(
    "products.yaml",
    captions ? text : text.replace("    from: shots\n", "    from: shots\n    enabled: false\n"),
  );
}

describe.each(STORE_KINDS)("rows from a spreadsheet (%s)", (kind) => {
  it("the products example makes files named by label, clips of the studio shots only, and captions that read each shot's row, also when started by a later run", async () => {
    const url = kind === "postgres" ? await testDatabase({ schema: true }) : undefined;
    await withRun(
      { seed: "rows" },
      async (scope) => {
        // The shots and clips first; the captions in a later process, from the recorded shots.
        const first = await scope.gwrun(["run", productsManifest(scope, false)]).done;
        expect(first.stderr).toMatch(/run 1 done after [^:]+: 20 tasks, 20 done/);
        expect(first.code).toBe(0);
        const files = filesBelow(scope.outputDir);
        expect(files).toContain("shots/PAN-01-studio.png");
        expect(files).toContain("shots/MUG-02-flatlay.png");
        expect(files).toContain("clips/clips-of-KET-03-studio.mp4");
        expect(files.filter((file) => /^clips\/.*\.mp4$/.test(file))).toHaveLength(5);
        expect(files.some((file) => file.startsWith("clips/") && file.includes("kitchen"))).toBe(
          false,
        );

        const second = await scope.gwrun(["run", productsManifest(scope, true)]).done;
        expect(second.code).toBe(0);
        // The 20 tasks of the first run are not paid for again.
        expect(second.stderr).toMatch(/run 2 done after [^:]+: 35 tasks, 35 done/);
        expect(scope.sim.counters().submits.accepted).toBe(20);
        const captions = (await scope.tasks()).filter((task) => task.job_id === "captions");
        expect(captions).toHaveLength(15);
        const pan = captions.find((task) => task.label === "captions-of-PAN-01-kitchen");
        expect(JSON.parse(pan?.request ?? "{}").messages[1].content).toBe(
          "Caption for the Copper pan, 24 cm (kitchen shot); tagline: Even heat, every time",
        );
        const results = readFileSync(path.join(scope.outputDir, "results.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as { label: string; vars: { row?: { name: string } } });
        const bowl = results.find((line) => line.label === "BWL-04-studio");
        expect(bowl?.vars.row?.name).toBe('Bowl "Sakura", set of 2');
      },
      url,
    );
  });
});

describe("rows that break a rule", () => {
  it("gwrun validate shows a bad CSV cell at its line and column, framed in the CSV, and the job that used it", async () => {
    const dir = tempDir({
      "p.csv": 'sku,name,seconds\nA,"pan, copper",6\nB,mug,ten\n',
      "m.yaml": `version: 1
jobs:
  - id: clips
    model: acme-video-2.3
    rows: p.csv
    prompt: "{{row.name}}"
    duration: "{{row.seconds}}"
    label: "{{row.sku}}"
`,
    });
    const result = await gwrun(["validate", path.join(dir, "m.yaml")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      [
        `${path.join(dir, "p.csv")}:3:7  error duration: must be a number, got "ten" (row 2, used by job "clips")  [type]`,
        '    2 | A,"pan, copper",6',
        "  > 3 | B,mug,ten",
        "      |       ^",
      ].join("\n"),
    );
    expect(result.stderr).toContain("1 error; nothing was submitted");
  });
});
