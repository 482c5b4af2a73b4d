import { describe, expect, it } from "vitest";
import { checkManifestText } from "../../../src/families/index.js";
import { inGatewayTime } from "../../../src/run/index.js";

describe("the manifest's waits against a faster simulator", () => {
  it("scales them to whole milliseconds, which every store can keep", async () => {
    const text = `version: 1
name: scaled
poll: { first_after: 50ms, every: 70ms, give_up_after: 1s }
retry: { attempts: 3, min_delay: 5ms, max_delay: 1s }
jobs:
  - id: stills
    model: acme-image-2
    prompt: "A ceramic mug"
    size: "256x256"
`;
    const checked = await checkManifestText(text, "scaled.yaml", {}, 0);
    const settings = checked.expanded.settings;
    if (settings === undefined) throw new Error("the test manifest is invalid");
    const { poll, retry } = inGatewayTime(settings, 3);
    expect(poll).toMatchObject({ firstAfterMs: 17, everyMs: 23, giveUpAfterMs: 333 });
    expect(retry).toMatchObject({ minDelayMs: 2, maxDelayMs: 333 });
  });
});
