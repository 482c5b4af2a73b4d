import { describe, expect, it } from "vitest";
import { FAMILIES } from "../../../../src/families/registry.js";
import { gwrun } from "../../../helpers/cli.js";

describe("gwrun fields", () => {
  it("prints every field of image family B with its enums in exact case", async () => {
    const result = await gwrun(["fields", "acme2.7-image-pro"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const text = result.stdout;
    expect(text).toContain("image family B (image-b)");
    expect(text).toContain("endpoint: /v1/images/generations");
    expect(text).toContain("acme2.7-image-pro");
    for (const field of [
      "model",
      "prompt",
      "image_urls",
      "n",
      "size",
      "resolution",
      "negative_prompt",
      "watermark",
      "seed",
      "thinking_mode",
      "enable_sequential",
      "bbox_list",
      "color_palette",
    ]) {
      expect(text).toMatch(new RegExp(`^  ${field} `, "m"));
    }
    expect(text).toMatch(/^ {2}resolution +string +no .*"1K", "2K", "4K"/m);
    expect(text).toMatch(/^ {2}model +string +yes /m);
    expect(text).toMatch(/^ {2}n +integer +no .*1 to 12/m);
    expect(text).toMatch(/^ {2}prompt .*at most 5000 characters/m);
    expect(text).toMatch(/^ {2}color_palette .*3 to 10 items/m);
    // Only the one family was asked for.
    expect(text).not.toContain("image family A");
  });

  it("states rules the zod schemas hold in refinements: model ids, URL kinds, enums of numbers", async () => {
    const imageB = (await gwrun(["fields", "acme2.7-image"])).stdout;
    expect(imageB).toMatch(/^ {2}model .*<brand>2\.7-image-pro/m);
    expect(imageB).toMatch(/^ {2}image_urls .*Data URI/m);
    const video = (await gwrun(["fields", "acme-video-2.3"])).stdout;
    expect(video).toMatch(/^ {2}duration +integer .*6, 10/m);
  });

  it("prints every family when no model is given, and text families by endpoint word", async () => {
    const result = await gwrun(["fields"]);
    expect(result.code).toBe(0);
    for (const family of FAMILIES) expect(result.stdout).toContain(`(${family.id})`);
    const chat = await gwrun(["fields", "chat"]);
    expect(chat.code).toBe(0);
    expect(chat.stdout).toContain("endpoint: /v1/chat/completions");
    expect(chat.stdout).toMatch(/^ {2}messages +array/m);
  });

  it("an unknown model gets validation's did-you-mean and exit 2", async () => {
    const result = await gwrun(["fields", "acme2.7-imag"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain('unknown model "acme2.7-imag" (did you mean "acme2.7-image"?)');
  });

  it("--json prints the reference as data", async () => {
    const result = await gwrun(["fields", "acme2.7-image", "--json"]);
    expect(result.code).toBe(0);
    const [family] = JSON.parse(result.stdout) as {
      id: string;
      fields: { name: string; required: boolean; values?: unknown[] }[];
    }[];
    expect(family?.id).toBe("image-b");
    const resolution = family?.fields.find((field) => field.name === "resolution");
    expect(resolution).toMatchObject({ required: false, values: ["1K", "2K", "4K"] });
  });
});
