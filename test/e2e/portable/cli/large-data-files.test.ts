import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrunProcess } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";

/**
 * A data file of many rows is checked holding its text and where each row
 * starts, not every row's cells, so memory a row costs is a few bytes beside its text.
 */

const ROWS = 150_000;
/**
 * Held as objects of cells, 150,000 rows need more than 48 MB of heap (and 25,000 rows in four
 * labelled variants more than 64 MB); read again, each needs less than 32.
 */
const HEAP_MB = 48;

/** Two jobs over one CSV of `ROWS` rows of short cells; `bad` gives one row a size no model has. */
function catalogue(bad?: number): string {
  const lines = ["sku,name,colour,size"];
  for (let i = 0; i < ROWS; i++)
    lines.push(`S${i},mug ${i},${i % 2 === 0 ? "blue" : "red"},${i === bad ? "16:8" : "1:1"}`);
  const dir = tempDir({ "rows.csv": `${lines.join("\n")}\n` });
  const manifest = path.join(dir, "catalogue.yaml");
  writeFileSync(
    manifest,
    `version: 1
name: catalogue
limits: { max_tasks: ${ROWS} }
jobs:
  - id: shots
    model: acme-image-2
    rows: { file: rows.csv, where: { colour: red } }
    prompt: "a {{row.name}}"
    size: "{{row.size}}"
  - id: blue
    model: acme-image-2
    rows: { file: rows.csv, where: { colour: blue } }
    prompt: "a {{row.name}}, turning"
    size: "{{row.size}}"
`,
  );
  return manifest;
}

const limited = { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` };

const VARIANTS = ["studio", "kitchen", "garden", "table"];

/** A job of `rows` rows in four variants, each task labelled; `twin` repeats row 11's sku last. */
function variants(rows: number, twin = false): string {
  const lines = ["sku,name"];
  for (let i = 0; i < rows; i++) lines.push(`S${twin && i === rows - 1 ? 10 : i},mug ${i}`);
  const dir = tempDir({ "rows.csv": `${lines.join("\n")}\n` });
  const manifest = path.join(dir, "variants.yaml");
  writeFileSync(
    manifest,
    `version: 1
name: variants
limits: { max_tasks: ${rows * VARIANTS.length} }
jobs:
  - id: shots
    model: acme-image-2
    rows: rows.csv
    prompt: "a {{row.name}}, {{style}}"
    matrix: { style: [${VARIANTS.join(", ")}] }
    label: "{{row.sku}}-{{style}}"
`,
  );
  return manifest;
}

describe("gwrun validate: data files of many rows", () => {
  it(`a CSV of ${ROWS.toLocaleString("en")} rows validates in a ${HEAP_MB} MB heap, and a bad cell near its end is placed at its line and column`, () => {
    const valid = gwrunProcess(["validate", catalogue()], { env: limited });
    expect(valid.stderr).toBe("");
    expect(valid.stdout).toContain(`valid (2 jobs, ${ROWS} tasks)`);
    expect(valid.code).toBe(0);
    const bad = ROWS - 3;
    const invalid = gwrunProcess(["validate", catalogue(bad)], { env: limited });
    expect(invalid.code).toBe(2);
    // The header is line 1; row `bad` (0-based) is line bad + 2, its size after "S…,mug …,red,".
    const line = `S${bad},mug ${bad},red,`;
    expect(invalid.stderr).toContain(
      `rows.csv:${bad + 2}:${line.length + 1}  error size: must be "auto", a ratio`,
    );
    expect(invalid.stderr).toContain(`got "16:8" (row ${bad + 1}, used by job "shots")`);
  });

  it(`25,000 rows in four variants, every task labelled, validate in a ${HEAP_MB} MB heap, and a label used twice names both tasks' rows and variants`, () => {
    const rows = 25_000;
    const valid = gwrunProcess(["validate", variants(rows)], { env: limited });
    expect(valid.stderr).toBe("");
    expect(valid.stdout).toContain(`valid (1 job, ${rows * VARIANTS.length} tasks)`);
    const twins = gwrunProcess(["validate", variants(rows, true)], { env: limited });
    expect(twins.code).toBe(2);
    expect(twins.stderr).toContain(
      `variants.yaml:10:12  error label: "S10-studio" names both (row 11, style="studio") and (row ${rows}, style="studio"); "S10-kitchen" names both (row 11, style="kitchen") and (row ${rows}, style="kitchen");`,
    );
  });
});
