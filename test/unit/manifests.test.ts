import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { checkManifestFile } from "../../src/families/check-manifest.js";
import { FAMILIES } from "../../src/families/registry.js";
import { ROOT } from "../helpers/root.js";

function manifestsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return manifestsUnder(full);
    return entry.name.endsWith(".yaml") ? [full] : [];
  });
}

const manifests = manifestsUnder(path.join(ROOT, "manifests"));

describe("example manifests", () => {
  it.each(
    manifests.map((file) => path.relative(ROOT, file)),
  )("%s is valid and points at the schema", async (file) => {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    const schemaPath = path.relative(
      path.dirname(path.join(ROOT, file)),
      path.join(ROOT, "schemas/manifest.schema.json"),
    );
    expect(text.split("\n")[0]).toBe(`# yaml-language-server: $schema=${schemaPath}`);
    const checked = await checkManifestFile(path.join(ROOT, file), { PATH: process.env.PATH });
    expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(checked.valid).toBe(true);
  });

  it("include one manifest per family", async () => {
    const used = new Set<string>();
    for (const file of manifests) {
      const checked = await checkManifestFile(file, { PATH: process.env.PATH });
      for (const { family } of checked.jobs) if (family !== undefined) used.add(family.id);
    }
    expect([...used].sort()).toEqual(FAMILIES.map((family) => family.id).sort());
  });
});
