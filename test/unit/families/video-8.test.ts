import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video8 } from "../../../src/families/video-8.js";

const video = "https://example.com/clip.mp4";
const image = "https://example.com/style.png";
const minimal = { model: "acme2.7-videoedit", video_urls: [video] };

describe("video family 8", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video8, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      video_urls: [video, "https://example.com/other.MOV", "https://cdn.example.com/v/abc?sig=1"],
      prompt: "turn it into a watercolor",
      negative_prompt: "text",
      image_urls: [image, image, image, image],
      resolution: "720P",
      duration: 2,
      size: "3:4",
      prompt_extend: false,
      watermark: true,
      seed: 0,
      metadata: { audio_setting: "origin" },
    };
    expect(validateRequest(video8, rich)).toEqual([]);
    expect(validateRequest(video8, { ...minimal, duration: 0 })).toEqual([]);
    expect(validateRequest(video8, { ...minimal, duration: 10 })).toEqual([]);
  });

  it.each([
    ["model is fixed", { model: "acme2.7-r2v" }, ["model"], "model"],
    ["video_urls is required", { video_urls: undefined }, ["video_urls"], "required"],
    ["video_urls holds at least one video", { video_urls: [] }, ["video_urls"], "count"],
    ["video_urls are URLs", { video_urls: ["clip.mp4"] }, ["video_urls", 0], "url-only"],
    [
      "videos are MP4 or MOV",
      { video_urls: ["https://example.com/clip.webm"] },
      ["video_urls", 0],
      "format",
    ],
    ["prompt holds at most 5000 characters", { prompt: "a".repeat(5001) }, ["prompt"], "length"],
    [
      "negative_prompt holds at most 500 characters",
      { negative_prompt: "a".repeat(501) },
      ["negative_prompt"],
      "length",
    ],
    ["image_urls holds at most 4", { image_urls: Array(5).fill(image) }, ["image_urls"], "count"],
    [
      "image_urls are public URLs",
      { image_urls: ["data:image/png;base64,iVBO"] },
      ["image_urls", 0],
      "url-only",
    ],
    ["resolution is uppercase P", { resolution: "1080p" }, ["resolution"], "enum"],
    ["duration is not 1", { duration: 1 }, ["duration"], "range"],
    ["duration is at most 10", { duration: 11 }, ["duration"], "range"],
    ["duration is not negative", { duration: -1 }, ["duration"], "range"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["size is one of the ratios", { size: "21:9" }, ["size"], "enum"],
    ["prompt_extend is a boolean", { prompt_extend: "true" }, ["prompt_extend"], "type"],
    ["watermark is a boolean", { watermark: null }, ["watermark"], "type"],
    ["seed is 0 or more", { seed: -1 }, ["seed"], "range"],
    ["seed is an integer", { seed: 2.5 }, ["seed"], "type"],
    ["metadata is an object", { metadata: "origin" }, ["metadata"], "type"],
    [
      "audio_setting is auto or origin",
      { metadata: { audio_setting: "keep" } },
      ["metadata", "audio_setting"],
      "enum",
    ],
    ["an undefined field is an error", { video_url: video }, ["video_url"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video8, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("expects the full source length by default and regenerated audio", () => {
    expect(video8.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: null,
      audio: true,
    });
    expect(video8.expectedOutputs({ ...minimal, duration: 6 }).durationSeconds).toBe(6);
    const origin = { ...minimal, metadata: { audio_setting: "origin" } };
    expect(video8.expectedOutputs(origin).audio).toBeNull();
    expect(video8.estimateCost(minimal)).toBeNull();
  });

  it("accepts metadata fields the spec does not show, and checks only the first video's format", () => {
    const body = {
      model: "acme2.7-videoedit",
      video_urls: ["https://e.com/a.mp4", "https://e.com/b.webm"],
      metadata: { audio_setting: "origin", other: 1 },
    };
    expect(validateRequest(video8, body)).toEqual([]);
    expect(
      validateRequest(video8, { ...body, video_urls: ["https://e.com/a.avi"] }),
    ).toContainEqual(expect.objectContaining({ path: ["video_urls", 0], rule: "format" }));
  });
});
