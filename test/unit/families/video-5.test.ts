import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video5 } from "../../../src/families/video-5.js";

const image = "https://example.com/a.png";
const video = "https://example.com/clip.mp4";
const minimal = {
  model: "acme2.7-r2v",
  prompt: "the cat from image 1 walks on a fence",
  image_with_roles: [{ url: image }],
};

describe("video family 5", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video5, minimal)).toEqual([]);
    const videoOnly = { model: "acme2.7-r2v", prompt: "like video 1", video_urls: [video] };
    expect(validateRequest(video5, videoOnly)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      image_with_roles: [
        { url: image, role: "first_frame" },
        { url: image, role: "reference_image", reference_voice: "https://example.com/v.wav" },
      ],
      video_urls: [video, video, video],
      negative_prompt: "blur",
      resolution: "720P",
      duration: 10,
      size: "4:3",
      prompt_extend: false,
      watermark: true,
      seed: 0,
    };
    expect(validateRequest(video5, rich)).toEqual([]);
    expect(validateRequest(video5, { ...minimal, duration: 15 })).toEqual([]);
  });

  it.each([
    ["model is fixed", { model: "acme2.7-t2v" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["prompt holds at most 5000 characters", { prompt: "a".repeat(5001) }, ["prompt"], "length"],
    [
      "a reference image or video is required",
      { image_with_roles: undefined },
      ["image_with_roles"],
      "required",
    ],
    [
      "empty references do not count",
      { image_with_roles: [], video_urls: [] },
      ["image_with_roles"],
      "required",
    ],
    [
      "images plus videos are at most 5",
      { image_with_roles: Array(3).fill({ url: image }), video_urls: [video, video, video] },
      ["video_urls"],
      "count",
    ],
    [
      "role is reference_image or first_frame",
      { image_with_roles: [{ url: image, role: "last_frame" }] },
      ["image_with_roles", 0, "role"],
      "enum",
    ],
    [
      "image urls are public URLs",
      { image_with_roles: [{ url: "data:image/png;base64,iVBO" }] },
      ["image_with_roles", 0, "url"],
      "url-only",
    ],
    [
      "an image item needs a url",
      { image_with_roles: [{ role: "first_frame" }] },
      ["image_with_roles", 0, "url"],
      "required",
    ],
    [
      "reference_voice is a URL",
      { image_with_roles: [{ url: image, reference_voice: "voice.wav" }] },
      ["image_with_roles", 0, "reference_voice"],
      "url-only",
    ],
    ["video_urls are URLs", { video_urls: ["clip.mp4"] }, ["video_urls", 0], "url-only"],
    [
      "negative_prompt holds at most 500 characters",
      { negative_prompt: "a".repeat(501) },
      ["negative_prompt"],
      "length",
    ],
    ["resolution is uppercase P", { resolution: "720p" }, ["resolution"], "enum"],
    ["duration is at least 2", { duration: 1 }, ["duration"], "range"],
    ["duration is at most 15", { duration: 16 }, ["duration"], "range"],
    [
      "duration is at most 10 with a video",
      { duration: 11, video_urls: [video] },
      ["duration"],
      "range",
    ],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["size is one of the ratios", { size: "21:9" }, ["size"], "enum"],
    ["prompt_extend is a boolean", { prompt_extend: "no" }, ["prompt_extend"], "type"],
    ["watermark is a boolean", { watermark: 1 }, ["watermark"], "type"],
    ["seed is not negative", { seed: -1 }, ["seed"], "range"],
    ["seed is an integer", { seed: 1.5 }, ["seed"], "type"],
    ["an undefined field is an error", { image_urls: [image] }, ["image_urls"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video5, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("expects the requested or default duration", () => {
    expect(video5.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: null,
    });
    expect(video5.expectedOutputs({ ...minimal, duration: 12 }).durationSeconds).toBe(12);
    expect(video5.estimateCost(minimal)).toBeNull();
  });
});
