import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video7 } from "../../../src/families/video-7.js";

const image = "https://example.com/a.png";
const minimal = { model: "acme-v2-6", prompt: "a kite climbs over a windy beach" };

describe("video family 7", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video7, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      mode: "pro",
      duration: 10,
      aspect_ratio: "9:16",
      negative_prompt: "blur",
      image_urls: [image],
      audio: true,
      watermark: true,
    };
    expect(validateRequest(video7, rich)).toEqual([]);
    const frames = { ...minimal, mode: "pro", image_urls: [image, image], audio: false };
    expect(validateRequest(video7, frames)).toEqual([]);
    expect(validateRequest(video7, { ...minimal, mode: "std", audio: false })).toEqual([]);
  });

  it.each([
    ["model is fixed", { model: "acme-v2-5" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["prompt holds at most 2500 characters", { prompt: "a".repeat(2501) }, ["prompt"], "length"],
    ["mode is std or pro", { mode: "fast" }, ["mode"], "enum"],
    ["duration is 5 or 10", { duration: 7 }, ["duration"], "enum"],
    ["duration must be a JSON number", { duration: "10" }, ["duration"], "json-number"],
    ["aspect_ratio is one of three", { aspect_ratio: "4:3" }, ["aspect_ratio"], "enum"],
    ["negative_prompt is a string", { negative_prompt: ["blur"] }, ["negative_prompt"], "type"],
    [
      "image_urls holds at most 2",
      { mode: "pro", image_urls: [image, image, image] },
      ["image_urls"],
      "count",
    ],
    [
      "image_urls are public URLs",
      { image_urls: ["data:image/png;base64,iVBO"] },
      ["image_urls", 0],
      "url-only",
    ],
    ["two images need pro", { image_urls: [image, image] }, ["image_urls"], "only-with"],
    ["audio is only in pro", { mode: "std", audio: true }, ["audio"], "only-with"],
    [
      "audio cannot be used with a last frame",
      { mode: "pro", image_urls: [image, image], audio: true },
      ["audio"],
      "mutually-exclusive",
    ],
    ["audio is a boolean", { mode: "pro", audio: "true" }, ["audio"], "type"],
    ["watermark is a boolean", { watermark: 0 }, ["watermark"], "type"],
    ["an undefined field is an error", { voice: "alto" }, ["voice"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video7, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("skips mode rules when mode itself is malformed", () => {
    const issues = validateRequest(video7, { ...minimal, mode: "PRO", audio: true });
    expect(issues.map((issue) => issue.rule)).toEqual(["enum"]);
  });

  it("expects silence in std and audio in pro when asked", () => {
    expect(video7.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: false,
    });
    const pro = { ...minimal, mode: "pro", duration: 10 };
    expect(video7.expectedOutputs({ ...pro, audio: true })).toMatchObject({
      durationSeconds: 10,
      audio: true,
    });
    expect(video7.expectedOutputs(pro).audio).toBeNull();
    expect(video7.estimateCost(minimal)).toBeNull();
  });
});
