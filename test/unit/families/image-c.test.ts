import { describe, expect, it } from "vitest";
import { imageC } from "../../../src/families/image-c.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-seedance-4-5", prompt: "a paper boat on a puddle" };
const url = "https://example.com/a.png";

describe("image family C", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(imageC, minimal)).toEqual([]);
  });

  it("accepts every alias of the model", () => {
    for (const model of [
      "acme-seedance-4-5",
      "acme-seedance-4.5",
      "acme-Seedance-4-5",
      "acme-Seedance-4.5",
    ]) {
      expect(validateRequest(imageC, { ...minimal, model })).toEqual([]);
    }
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      size: "auto",
      resolution: "4K",
      n: 5,
      image_urls: [url, "data:image/jpeg;base64,/9j/4AAQ"],
      optimize_prompt_options: { mode: "fast" },
      sequential_image_generation: "auto",
      sequential_image_generation_options: { max_images: 13 },
      watermark: true,
    };
    expect(validateRequest(imageC, rich)).toEqual([]);
    expect(validateRequest(imageC, { ...minimal, size: "21:9", resolution: "2K" })).toEqual([]);
  });

  it.each([
    ["model must be one of the aliases", { model: "acme-SEEDANCE-4-5" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["size must be one of the list", { size: "5:4" }, ["size"], "enum"],
    ["size auto needs image_urls", { size: "auto" }, ["size"], "only-with"],
    ["resolution 1K is unsupported", { resolution: "1K" }, ["resolution"], "enum"],
    ["resolution is uppercase", { resolution: "2k" }, ["resolution"], "enum"],
    ["n is at most 15", { n: 16, image_urls: [url] }, ["n"], "range"],
    ["n is at least 1", { n: 0 }, ["n"], "range"],
    ["n must be a JSON number", { n: "1" }, ["n"], "json-number"],
    ["n above 1 needs reference images", { n: 2 }, ["n"], "only-with"],
    ["references plus n are at most 15", { n: 12, image_urls: Array(4).fill(url) }, ["n"], "count"],
    ["image_urls holds at most 10", { image_urls: Array(11).fill(url) }, ["image_urls"], "count"],
    [
      "image_urls items are URLs or Data URIs",
      { image_urls: ["x.png"] },
      ["image_urls", 0],
      "image-ref",
    ],
    [
      "image_urls Data URIs are jpeg or png",
      { image_urls: ["data:image/webp;base64,UklGRiQAAABXRUJQ"] },
      ["image_urls", 0],
      "image-format",
    ],
    [
      "optimize_prompt_options.mode is standard or fast",
      { optimize_prompt_options: { mode: "slow" } },
      ["optimize_prompt_options", "mode"],
      "enum",
    ],
    [
      "optimize_prompt_options takes only mode",
      { optimize_prompt_options: { mood: "fast" } },
      ["optimize_prompt_options", "mood"],
      "unknown-field",
    ],
    [
      "sequential_image_generation is disabled or auto",
      { sequential_image_generation: "on" },
      ["sequential_image_generation"],
      "enum",
    ],
    [
      "sequential auto needs a reference image",
      { sequential_image_generation: "auto" },
      ["sequential_image_generation"],
      "only-with",
    ],
    [
      "options only with auto",
      { image_urls: [url], sequential_image_generation_options: { max_images: 3 } },
      ["sequential_image_generation_options"],
      "only-with",
    ],
    [
      "max_images is 1 to 15",
      {
        image_urls: [url],
        sequential_image_generation: "auto",
        sequential_image_generation_options: { max_images: 16 },
      },
      ["sequential_image_generation_options", "max_images"],
      "range",
    ],
    [
      "max_images is required in the options",
      {
        image_urls: [url],
        sequential_image_generation: "auto",
        sequential_image_generation_options: {},
      },
      ["sequential_image_generation_options", "max_images"],
      "required",
    ],
    [
      "references plus max_images are at most 15",
      {
        image_urls: Array(5).fill(url),
        sequential_image_generation: "auto",
        sequential_image_generation_options: { max_images: 11 },
      },
      ["sequential_image_generation_options", "max_images"],
      "count",
    ],
    ["watermark is a boolean", { watermark: "false" }, ["watermark"], "type"],
    ["an undefined field is an error", { resolutions: "2K" }, ["resolutions"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(imageC, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("says plainly that 1K is unsupported", () => {
    const [issue] = validateRequest(imageC, { ...minimal, resolution: "1K" });
    expect(issue?.message).toContain("1K is not supported");
  });

  it("promises the reference sizes the spec gives, else none", () => {
    expect(imageC.expectedOutputs(minimal)).toEqual({
      kind: "image",
      count: 1,
      exact: true,
      sizes: [{ width: 2048, height: 2048 }],
    });
    expect(imageC.expectedOutputs({ ...minimal, size: "16:9", resolution: "4K" }).sizes).toEqual([
      { width: 5404, height: 3040 },
    ]);
    expect(imageC.expectedOutputs({ ...minimal, size: "4:3" }).sizes).toBeNull();
    expect(imageC.estimateCost(minimal)).toBeNull();
  });

  it("counts an upper bound when the model may return several", () => {
    const refs = { ...minimal, image_urls: [url, url] };
    expect(imageC.expectedOutputs({ ...refs, n: 4 })).toMatchObject({ count: 4, exact: false });
    expect(
      imageC.expectedOutputs({
        ...refs,
        sequential_image_generation: "auto",
        sequential_image_generation_options: { max_images: 6 },
      }),
    ).toMatchObject({ count: 6, exact: false });
    expect(imageC.expectedOutputs({ ...refs, sequential_image_generation: "auto" })).toMatchObject({
      count: 13,
      exact: false,
    });
  });
});
