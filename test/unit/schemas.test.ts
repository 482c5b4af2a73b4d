import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FAMILIES_DOC_COMMAND, renderFieldsMarkdown } from "../../src/cli/fields.js";
import { renderSchemas } from "../../src/cli/schema.js";
import { familyReference } from "../../src/families/index.js";
import { FAMILIES } from "../../src/families/registry.js";
import { ROOT } from "../helpers/root.js";

describe("schemas/", () => {
  it("matches what `gwrun schema` writes (run it after changing a schema)", () => {
    const expected = renderSchemas();
    const onDisk = readdirSync(path.join(ROOT, "schemas"))
      .filter((name) => name.endsWith(".json"))
      .sort();
    expect(onDisk).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected) {
      expect(
        readFileSync(path.join(ROOT, "schemas", name), "utf8"),
        `schemas/${name} is stale`,
      ).toBe(text);
    }
  });

  it("has one schema per family, one for the manifest and one for the --json events", () => {
    expect(renderSchemas().size).toBe(FAMILIES.length + 2);
  });
});

describe("docs/families.md", () => {
  it("matches what `gwrun fields --markdown docs/families.md` writes, one section per family", () => {
    const expected = renderFieldsMarkdown(FAMILIES.map(familyReference));
    const onDisk = readFileSync(path.join(ROOT, "docs/families.md"), "utf8");
    expect(onDisk, `docs/families.md is stale: run \`${FAMILIES_DOC_COMMAND}\``).toBe(expected);
    for (const family of FAMILIES)
      expect(onDisk).toContain(`## ${family.title} (\`${family.id}\`)`);
  });
});
