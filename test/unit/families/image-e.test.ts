import { describe, expect, it } from "vitest";
import { imageE, imageEBrand } from "../../../src/families/image-e.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-3.1-flash-image-preview", prompt: "a tin robot reading a book" };
const url = "https://example.com/a.png";

describe("image family E", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(imageE, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      size: "8:1",
      resolution: "0.5K",
      n: 4,
      official_fallback: true,
      image_urls: Array(13).fill(url).concat("data:image/webp;base64,UklGR"),
      acme_search: true,
    };
    expect(validateRequest(imageE, rich)).toEqual([]);
    const official = {
      model: "Zeta9-3.1-flash-image-preview-official",
      prompt: "x",
      Zeta9_search: false,
    };
    expect(validateRequest(imageE, official)).toEqual([]);
  });

  it.each([
    [
      "model is the standard or -official id",
      { model: "acme-3.1-flash-image" },
      ["model"],
      "model",
    ],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["size must be one of the 14 ratios", { size: "2:1" }, ["size"], "enum"],
    ["resolution is one of 0.5K, 1K, 2K, 4K", { resolution: "1k" }, ["resolution"], "enum"],
    ["n is at most 4", { n: 5 }, ["n"], "range"],
    ["n must be a JSON number", { n: "2" }, ["n"], "json-number"],
    [
      "image_urls Data URIs are jpeg, png or webp",
      { image_urls: ["data:image/gif;base64,R0lGODlh"] },
      ["image_urls", 0],
      "image-format",
    ],
    [
      "official_fallback is a boolean",
      { official_fallback: "true" },
      ["official_fallback"],
      "type",
    ],
    [
      "official_fallback is not for the -official model",
      { model: "acme-3.1-flash-image-preview-official", official_fallback: true },
      ["official_fallback"],
      "model",
    ],
    ["image_urls holds at most 14", { image_urls: Array(15).fill(url) }, ["image_urls"], "count"],
    [
      "image_urls items are URLs or Data URIs",
      { image_urls: ["ftp://x"] },
      ["image_urls", 0],
      "image-ref",
    ],
    ["the search flag is a boolean", { acme_search: "yes" }, ["acme_search"], "type"],
    [
      "one text search flag at most",
      { acme_search: true, other_search: true },
      ["other_search"],
      "mutually-exclusive",
    ],
    [
      "the image-search flag has no known name",
      { acme_image_search: true },
      ["acme_image_search"],
      "unknown-field",
    ],
    ["an undefined field is an error", { resolutoin: "2K" }, ["resolutoin"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(imageE, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("suggests the field a typo meant, including the brand's search flag", () => {
    const [typo] = validateRequest(imageE, { ...minimal, resolutoin: "2K" });
    expect(typo?.message).toContain('did you mean "resolution"');
    const [search] = validateRequest(imageE, { ...minimal, acme_serch: true });
    expect(search?.message).toContain('did you mean "acme_search"');
    expect(validateRequest(imageE, { ...minimal, google_search: true })).toEqual([]);
  });

  it("reads the brand from the model id", () => {
    expect(imageEBrand(minimal)).toBe("acme");
    expect(imageEBrand({ model: "acme-3.1-flash-image-preview-official" })).toBe("acme");
    expect(imageEBrand({ model: "acme-image-2" })).toBeUndefined();
  });

  it("lets the -official model send official_fallback: false, the default", () => {
    const official = { ...minimal, model: "acme-3.1-flash-image-preview-official" };
    expect(validateRequest(imageE, { ...official, official_fallback: false })).toEqual([]);
  });

  it("expects n images of approximate size", () => {
    expect(imageE.expectedOutputs({ ...minimal, n: 2, resolution: "4K" })).toEqual({
      kind: "image",
      count: 2,
      exact: true,
      sizes: null,
    });
    expect(imageE.estimateCost(minimal)).toBeNull();
  });

  it.each([
    ["n is at least 1", { n: 0 }, ["n"], "range"],
  ] as const)("holds the bounds: %s", (_name, change, path, rule) => {
    const base = { model: "acme-3.1-flash-image-preview", prompt: "a mug" };
    expect(validateRequest(imageE, { ...base, ...change })).toContainEqual(
      expect.objectContaining({ path: [...path], rule }),
    );
  });
});
