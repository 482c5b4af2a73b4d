import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video10 } from "../../../src/families/video-10.js";

const image = "https://example.com/a.png";
const minimal = { model: "acmeq3", prompt: "the camera circles the dancer", image_urls: [image] };
const mix = { ...minimal, model: "acmeq3-mix" };

describe("video family 10", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video10, minimal)).toEqual([]);
    expect(validateRequest(video10, mix)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      image_urls: Array(7).fill(image),
      duration: 16,
      resolution: "540p",
      aspect_ratio: "3:4",
      seed: 42,
    };
    expect(validateRequest(video10, rich)).toEqual([]);
    expect(validateRequest(video10, { ...mix, duration: 1, resolution: "1080p" })).toEqual([]);
  });

  it.each([
    ["model is q3 or q3-mix", { model: "acmeq2" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["prompt holds at most 5000 characters", { prompt: "a".repeat(5001) }, ["prompt"], "length"],
    ["image_urls is required", { image_urls: undefined }, ["image_urls"], "required"],
    ["image_urls holds at least one image", { image_urls: [] }, ["image_urls"], "count"],
    ["image_urls holds at most 7", { image_urls: Array(8).fill(image) }, ["image_urls"], "count"],
    [
      "image_urls are public URLs, not Data URIs",
      { image_urls: ["data:image/png;base64,iVBO"] },
      ["image_urls", 0],
      "url-only",
    ],
    ["duration is at most 16", { duration: 17 }, ["duration"], "range"],
    ["duration is at least 1", { ...mix, duration: 0 }, ["duration"], "range"],
    ["q3 takes duration 3 or more", { duration: 2 }, ["duration"], "model"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["resolution is one of 540p, 720p, 1080p", { resolution: "480p" }, ["resolution"], "enum"],
    ["q3-mix has no 540p", { ...mix, resolution: "540p" }, ["resolution"], "model"],
    ["aspect_ratio is one of five", { aspect_ratio: "21:9" }, ["aspect_ratio"], "enum"],
    ["seed is an integer", { seed: "7" }, ["seed"], "json-number"],
    [
      "an undefined field is an error",
      { negative_prompt: "x" },
      ["negative_prompt"],
      "unknown-field",
    ],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video10, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("checks local images against the stated limits", () => {
    expect(video10.imageInputs).toEqual([
      {
        path: ["image_urls", "*"],
        dataUri: false,
        formats: ["png", "jpeg", "webp"],
        maxBytes: 50 * 1024 * 1024,
        minSide: 128,
        minRatio: 0.25,
        maxRatio: 4,
      },
    ]);
  });

  it("expects the requested or default duration", () => {
    expect(video10.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: null,
    });
    expect(video10.expectedOutputs({ ...mix, duration: 2 }).durationSeconds).toBe(2);
    expect(video10.estimateCost(minimal)).toBeNull();
  });

  it("accepts the shortest duration of each model", () => {
    const base = { prompt: "the mug turns", image_urls: ["https://e.com/a.png"] };
    expect(validateRequest(video10, { ...base, model: "acmeq3", duration: 3 })).toEqual([]);
    expect(validateRequest(video10, { ...base, model: "acmeq3-mix", duration: 1 })).toEqual([]);
  });
});
