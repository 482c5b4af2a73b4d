import { describe, expect, it } from "vitest";
import {
  imageB,
  imageBMode,
  imageBTier,
  imageBWithinRange,
} from "../../../src/families/image-b.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme2.7-image-pro", prompt: "a lighthouse at dusk, oil painting" };
const url = "https://example.com/a.png";
// A 1×1 GIF.
const GIF = "R0lGODlhAQABAIAAAExpcf8AACH5BAUAAAAALAAAAAABAAEAAAICTAEAOw==";
const palette = [
  { hex: "#1A2B3C", ratio: "50.00%" },
  { hex: "#FFFFFF", ratio: "26.49%" },
  { hex: "#c0ffee", ratio: "23.51%" },
];

describe("image family B", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(imageB, minimal)).toEqual([]);
    expect(validateRequest(imageB, { model: "acme2.7-image", image_urls: [url] })).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      n: 4,
      size: "4K",
      resolution: "4K",
      negative_prompt: "people, text",
      watermark: true,
      seed: 2147483647,
      thinking_mode: false,
      enable_sequential: false,
      color_palette: palette,
    };
    expect(validateRequest(imageB, rich)).toEqual([]);
    const edit = {
      ...minimal,
      image_urls: [url, "data:image/png;base64,iVBORw0KGgo="],
      bbox_list: [
        [
          [10, 20, 300, 400],
          [0, 0, 50, 50],
        ],
        [],
      ],
      size: "16:9",
      resolution: "2K",
    };
    expect(validateRequest(imageB, edit)).toEqual([]);
    const sequential = { ...minimal, enable_sequential: true, n: 12, size: "1536*1024" };
    expect(validateRequest(imageB, sequential)).toEqual([]);
    expect(validateRequest(imageB, { ...minimal, size: "4096x4096" })).toEqual([]);
  });

  it.each([
    ["model must be one of the two ids", { model: "acme2.7-image-max" }, ["model"], "model"],
    ["prompt is required without image_urls", { prompt: undefined }, ["prompt"], "required"],
    ["prompt is at most 5000 characters", { prompt: "x".repeat(5001) }, ["prompt"], "length"],
    ["image_urls holds at most 9", { image_urls: Array(10).fill(url) }, ["image_urls"], "count"],
    [
      "image_urls items are URLs or Data URIs",
      { image_urls: ["ftp://x"] },
      ["image_urls", 0],
      "image-ref",
    ],
    ["n is 1 to 4 without enable_sequential", { n: 5 }, ["n"], "range"],
    ["n is at most 12 with enable_sequential", { n: 13, enable_sequential: true }, ["n"], "range"],
    ["n must be a JSON number", { n: "2" }, ["n"], "json-number"],
    ["size must be a tier, a ratio or pixels", { size: "21:9" }, ["size"], "size"],
    ["resolution tiers are uppercase", { resolution: "2k" }, ["resolution"], "enum"],
    ["the standard model goes up to 2K", { model: "acme2.7-image", size: "4K" }, ["size"], "model"],
    [
      "the standard model has no 4K resolution",
      { model: "acme2.7-image", resolution: "4K" },
      ["resolution"],
      "model",
    ],
    ["edit mode has no 4K", { image_urls: [url], size: "4K" }, ["size"], "tier"],
    [
      "pro is limited to 2K in sequential mode",
      { enable_sequential: true, resolution: "4K" },
      ["resolution"],
      "tier",
    ],
    ["pixels stay within the pro text-to-image range", { size: "700x700" }, ["size"], "range"],
    [
      "pixels stay within 2048x2048 in edit mode",
      { image_urls: [url], size: "3000x2000" },
      ["size"],
      "range",
    ],
    [
      "pixels stay within 2048x2048 for standard",
      { model: "acme2.7-image", size: "2560*1920" },
      ["size"],
      "range",
    ],
    ["seed is at most 2147483647", { seed: 2147483648 }, ["seed"], "range"],
    ["seed is an integer", { seed: 1.5 }, ["seed"], "type"],
    ["watermark is a boolean", { watermark: "yes" }, ["watermark"], "type"],
    ["thinking_mode is a boolean", { thinking_mode: 1 }, ["thinking_mode"], "type"],
    [
      "enable_sequential is a boolean",
      { enable_sequential: "true" },
      ["enable_sequential"],
      "type",
    ],
    ["negative_prompt is a string", { negative_prompt: ["x"] }, ["negative_prompt"], "type"],
    ["bbox_list needs image_urls", { bbox_list: [[]] }, ["bbox_list"], "only-with"],
    [
      "bbox_list has one entry per image",
      { image_urls: [url, url], bbox_list: [[]] },
      ["bbox_list"],
      "count",
    ],
    [
      "at most 2 boxes per image",
      {
        image_urls: [url],
        bbox_list: [
          [
            [0, 0, 1, 1],
            [0, 0, 1, 1],
            [0, 0, 1, 1],
          ],
        ],
      },
      ["bbox_list", 0],
      "count",
    ],
    [
      "a box has 4 numbers",
      { image_urls: [url], bbox_list: [[[0, 0, 1]]] },
      ["bbox_list", 0, 0],
      "count",
    ],
    [
      "box corners are ordered",
      { image_urls: [url], bbox_list: [[[50, 0, 10, 20]]] },
      ["bbox_list", 0, 0],
      "bbox",
    ],
    [
      "box coordinates are not negative",
      { image_urls: [url], bbox_list: [[[-1, 0, 10, 20]]] },
      ["bbox_list", 0, 0, 0],
      "range",
    ],
    [
      "color_palette only in non-sequential mode",
      { enable_sequential: true, color_palette: palette },
      ["color_palette"],
      "only-with",
    ],
    [
      "color_palette has at least 3 items",
      { color_palette: palette.slice(0, 2) },
      ["color_palette"],
      "count",
    ],
    [
      "color_palette has at most 10 items",
      { color_palette: Array(11).fill(palette[0]) },
      ["color_palette"],
      "count",
    ],
    [
      "palette ratios add up to 100.00%",
      { color_palette: [...palette.slice(0, 2), { hex: "#000000", ratio: "23.50%" }] },
      ["color_palette"],
      "palette-sum",
    ],
    [
      "palette hex is #RRGGBB",
      { color_palette: [{ ...palette[0], hex: "red" }, ...palette.slice(1)] },
      ["color_palette", 0, "hex"],
      "format",
    ],
    [
      "palette ratio is a percentage",
      { color_palette: [{ ...palette[0], ratio: "0.5" }, ...palette.slice(1)] },
      ["color_palette", 0, "ratio"],
      "format",
    ],
    [
      "palette items take only hex and ratio",
      { color_palette: [{ ...palette[0], name: "navy" }, ...palette.slice(1)] },
      ["color_palette", 0, "name"],
      "unknown-field",
    ],
    [
      "an undefined field is an error",
      { negativ_prompt: "x" },
      ["negativ_prompt"],
      "unknown-field",
    ],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(imageB, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("refuses a GIF Data URI in image family B's image_urls", () => {
    const issues = validateRequest(imageB, {
      ...minimal,
      image_urls: [`data:image/gif;base64,${GIF}`],
    });
    expect(issues).toEqual([
      {
        path: ["image_urls", 0],
        rule: "image-format",
        message:
          "a data:image/gif URI is not one of the formats this field takes (JPEG, PNG, WEBP, BMP)",
      },
    ]);
  });

  it("refuses a GIF labelled data:image/png in image_urls, by its first bytes", () => {
    const issues = validateRequest(imageB, {
      ...minimal,
      image_urls: [url, `data:image/png;base64,${GIF}`],
    });
    expect(issues).toEqual([
      {
        path: ["image_urls", 1],
        rule: "image-format",
        message:
          "a GIF image (labelled data:image/png) is not one of the formats this field takes (JPEG, PNG, WEBP, BMP)",
      },
    ]);
  });

  it("takes JPEG (also written jpg), PNG, WEBP and BMP Data URIs in image_urls", () => {
    const image_urls = [
      "data:image/jpeg;base64,/9j/4AAQ",
      "data:image/jpg;base64,/9j/4AAQ",
      "data:image/png;base64,iVBORw0KGgo=",
      "data:image/webp;base64,UklGRiQAAABXRUJQ",
      "data:image/bmp;base64,Qk0=",
    ];
    expect(validateRequest(imageB, { ...minimal, image_urls })).toEqual([]);
  });

  it("routes by enable_sequential, then image_urls", () => {
    expect(imageBMode(minimal)).toBe("text-to-image");
    expect(imageBMode({ ...minimal, image_urls: [url] })).toBe("edit");
    expect(imageBMode({ ...minimal, image_urls: [url], enable_sequential: true })).toBe(
      "sequential",
    );
  });

  it("expects n images, pixels only where the size names them", () => {
    expect(imageB.expectedOutputs(minimal)).toEqual({
      kind: "image",
      count: 1,
      exact: true,
      sizes: null,
    });
    expect(imageB.expectedOutputs({ ...minimal, n: 3, size: "1536x1024" })).toMatchObject({
      count: 3,
      exact: true,
      sizes: [{ width: 1536, height: 1024 }],
    });
    expect(imageB.expectedOutputs({ ...minimal, n: 6, enable_sequential: true })).toMatchObject({
      count: 6,
      exact: false,
    });
    expect(
      imageB.expectedOutputs({ ...minimal, image_urls: [url], size: "1024x1024" }).sizes,
    ).toBeNull();
  });

  it("states the tier and the pixel range of the model and mode", () => {
    expect(imageBTier(minimal)).toEqual({
      tier: "2K",
      maxTier: "4K",
      minPixels: 768 * 768,
      maxPixels: 4096 * 4096,
    });
    expect(imageBTier({ ...minimal, size: "16:9", resolution: "1K" }).tier).toBe("1K");
    expect(imageBTier({ ...minimal, size: "1024x1024" }).tier).toBeNull();
    expect(imageBTier({ model: "acme2.7-image", prompt: "x", size: "1K" })).toMatchObject({
      tier: "1K",
      maxTier: "2K",
    });
    expect(imageBWithinRange(minimal, { width: 3840, height: 2160 })).toBe(true);
    expect(
      imageBWithinRange({ ...minimal, image_urls: [url] }, { width: 3840, height: 2160 }),
    ).toBe(false);
  });

  it("pre-charges the per-image price times n", () => {
    expect(imageB.estimateCost(minimal)).toBe(0.5);
    expect(imageB.estimateCost({ ...minimal, n: 3 })).toBe(1.5);
    expect(imageB.estimateCost({ model: "acme2.7-image", prompt: "x", n: 3 })).toBe(0.6);
  });

  it.each([
    ["n is at least 1", { n: 0 }, ["n"], "range"],
    ["seed is at least 0", { seed: -1 }, ["seed"], "range"],
    ["seed is at most 2147483647", { seed: 2147483648 }, ["seed"], "range"],
  ] as const)("holds the bounds: %s", (_name, change, path, rule) => {
    const base = { model: "acme2.7-image", prompt: "a mug" };
    expect(validateRequest(imageB, { ...base, ...change })).toContainEqual(
      expect.objectContaining({ path: [...path], rule }),
    );
  });
});
