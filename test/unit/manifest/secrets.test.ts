import { describe, expect, it } from "vitest";
import { hasMaskedKey, MASKED_KEY, maskLiteralKey } from "../../../src/manifest/secrets.js";
import { checkInline } from "../../helpers/manifest.js";

const manifest = (key: string | undefined) => `version: 1
gateway:
  base_url: sim${key === undefined ? "" : `\n  api_key: ${key}`}
jobs:
  - { id: hero, model: acme-image-2, prompt: a mug }
`;

async function keyOf(key: string | undefined) {
  const checked = await checkInline(manifest(key), {}, { GW_KEY: "sk-from-env" });
  const warnings = checked.diagnostics
    .filter((d) => d.rule === "literal-key")
    .map((d) => `${d.line}:${d.col}`);
  return { warnings, stored: maskLiteralKey(checked.source), masked: hasMaskedKey(checked.source) };
}

describe("an API key written in the manifest", () => {
  it("is warned about at its value and masked where it stood in the run's copy", async () => {
    const { warnings, stored } = await keyOf("sk-live-1234");
    expect(warnings).toEqual(["4:12"]);
    expect(stored).toBe(manifest(MASKED_KEY));
    expect(stored).not.toContain("sk-live-1234");
  });

  it("counts as written when it is the default of a reference", async () => {
    const { warnings, stored } = await keyOf(`"\${GW_KEY:-sk-live-1234}"`);
    expect(warnings).toEqual(["4:12"]);
    expect(stored).not.toContain("sk-live-1234");
  });

  it("is left alone when it only names the environment, or is not there", async () => {
    for (const key of [`"\${GW_KEY}"`, undefined]) {
      const { warnings, stored, masked } = await keyOf(key);
      expect(warnings).toEqual([]);
      expect(stored).toBe(manifest(key));
      expect(masked).toBe(false);
    }
  });

  it("tells a run's masked copy, which must take its key from GW_API_KEY", async () => {
    expect((await keyOf(MASKED_KEY)).masked).toBe(true);
  });
});
