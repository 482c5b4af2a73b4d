import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gwrun } from "../../../helpers/cli.js";
import { tempDir } from "../../../helpers/manifest.js";

/** A manifest of one job reading `rows` rows of a CSV beside it, with `limits` when given. */
function rowsProject(rows: number, limits = ""): { dir: string; manifest: string } {
  const dir = tempDir();
  const lines = ["sku,name"];
  for (let i = 0; i < rows; i++) lines.push(`S${i},mug ${i}`);
  writeFileSync(path.join(dir, "rows.csv"), `${lines.join("\n")}\n`);
  const manifest = path.join(dir, "catalogue.yaml");
  writeFileSync(
    manifest,
    `version: 1
name: catalogue
${limits}jobs:
  - id: shots
    model: acme-image-2
    rows: rows.csv
    prompt: "a {{row.name}}"
    size: "1:1"
    resolution: 1k
    label: "{{row.sku}}"
`,
  );
  return { dir, manifest };
}

describe("gwrun validate: manifests of many tasks", () => {
  it("a data file of more rows than limits.max_tasks (100,000 unless raised) is an error at its rows:, and fits once the limit is raised", async () => {
    const over = rowsProject(100_001);
    try {
      const refused = await gwrun(["validate", over.manifest]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        "catalogue.yaml:6:11  error shots expands to 100,001 tasks (100,001 rows), taking the manifest to 100,001, above the limit of 100,000 tasks per manifest: split it, or raise limits.max_tasks  [too-many-tasks]",
      );
    } finally {
      rmSync(over.dir, { recursive: true, force: true });
    }
    const raised = rowsProject(100_001, "limits: { max_tasks: 200000 }\n");
    try {
      const valid = await gwrun(["validate", raised.manifest]);
      expect(valid.stderr).toBe("");
      expect(valid.code).toBe(0);
      expect(valid.stdout).toContain("valid (1 job, 100001 tasks)");
    } finally {
      rmSync(raised.dir, { recursive: true, force: true });
    }
  });
});
