import { describe, expect, it } from "vitest";
import { imageA } from "../../../src/families/image-a.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-image-2", prompt: "a ceramic mug on an oak table" };

describe("image family A", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(imageA, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      n: 1,
      size: "16:9",
      resolution: "4k",
      image_urls: ["https://example.com/a.png", "data:image/png;base64,iVBORw0KGgo="],
      official_fallback: true,
    };
    expect(validateRequest(imageA, rich)).toEqual([]);
    expect(validateRequest(imageA, { ...minimal, size: "1200x800" })).toEqual([]);
    expect(validateRequest(imageA, { ...minimal, size: "auto" })).toEqual([]);
  });

  it("takes a Data URI of any image format, as its section lists none", () => {
    const image_urls = ["data:image/gif;base64,R0lGODlh", "data:image/tiff;base64,SUkq"];
    expect(validateRequest(imageA, { ...minimal, image_urls })).toEqual([]);
  });

  it.each([
    ["model must be the family's id", { model: "acme-image-3" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["n may only be 1", { n: 2 }, ["n"], "range"],
    ["n must be a JSON number", { n: "1" }, ["n"], "json-number"],
    ["size must be a ratio of the table, auto or pixels", { size: "7:5" }, ["size"], "size"],
    ["resolution is lowercase", { resolution: "2K" }, ["resolution"], "enum"],
    [
      "image_urls holds at most 16",
      { image_urls: Array(17).fill("https://e.com/a.png") },
      ["image_urls"],
      "count",
    ],
    [
      "image_urls items are URLs or Data URIs",
      { image_urls: ["ftp://x"] },
      ["image_urls", 0],
      "image-ref",
    ],
    [
      "official_fallback is a boolean",
      { official_fallback: "true" },
      ["official_fallback"],
      "type",
    ],
    [
      "the ratio belongs in size, not the prompt",
      { prompt: "a mug, 16:9" },
      ["prompt"],
      "ratio-in-prompt",
    ],
    ["an undefined field is an error", { sizee: "1:1" }, ["sizee"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(imageA, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("only warns about a ratio in the prompt, since the spec advises rather than forbids it", () => {
    const issues = validateRequest(imageA, { ...minimal, prompt: "a 1:1 scale replica of a mug" });
    expect(issues).toEqual([
      expect.objectContaining({ rule: "ratio-in-prompt", severity: "warning" }),
    ]);
  });

  it("suggests the field a typo meant", () => {
    const [issue] = validateRequest(imageA, { ...minimal, resolutoin: "2k" });
    expect(issue?.message).toContain('did you mean "resolution"');
  });

  it("promises the pixel sizes of the table", () => {
    expect(imageA.expectedOutputs({ ...minimal, size: "16:9", resolution: "1k" }).sizes).toEqual([
      { width: 1536, height: 864 },
      { width: 1672, height: 941 },
    ]);
    expect(imageA.expectedOutputs(minimal).sizes).toEqual([
      { width: 1024, height: 1024 },
      { width: 1254, height: 1254 },
    ]);
    expect(imageA.expectedOutputs({ ...minimal, size: "auto" }).sizes).toBeNull();
    expect(imageA.estimateCost(minimal)).toBeNull();
  });

  it("rejects size values that only look like table keys", () => {
    for (const size of ["constructor", "toString", "__proto__"]) {
      expect(validateRequest(imageA, { ...minimal, size })).toContainEqual(
        expect.objectContaining({ path: ["size"], rule: "size" }),
      );
    }
  });

  it("promises the table's size at every resolution, and explicit pixels as given", () => {
    const sizes = (size: string, resolution: string) =>
      imageA.expectedOutputs({ ...minimal, size, resolution }).sizes;
    expect(sizes("16:9", "2k")).toEqual([{ width: 2048, height: 1152 }]);
    expect(sizes("9:21", "4k")).toEqual([{ width: 1648, height: 3840 }]);
    expect(sizes("1200x800", "2k")).toEqual([{ width: 1200, height: 800 }]);
  });
});
