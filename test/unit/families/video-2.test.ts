import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video2 } from "../../../src/families/video-2.js";

const minimal = { model: "acme-1.0", prompt: "a lighthouse in a storm" };
const image = "https://example.com/a.png";
const video = "https://example.com/source.mp4";

describe("video family 2", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video2, minimal)).toEqual([]);
  });

  it("accepts a rich request in each mode", () => {
    const edit = {
      ...minimal,
      video_url: video,
      image_urls: [image, "data:image/webp;base64,UklGRg=="],
      audio_setting: "origin",
      resolution: "720P",
      watermark: true,
      seed: 2147483647,
    };
    expect(validateRequest(video2, edit)).toEqual([]);
    const i2v = { model: "acme-1.0", first_frame_image: "data:image/jpeg;base64,/9j/4AAQ" };
    expect(validateRequest(video2, i2v)).toEqual([]);
    const r2v = {
      ...minimal,
      image_urls: Array(9).fill(image),
      duration: 15,
      size: "3:4",
      seed: 0,
    };
    expect(validateRequest(video2, r2v)).toEqual([]);
    expect(validateRequest(video2, { ...minimal, video_url: video, image_urls: [] })).toEqual([]);
  });

  it.each([
    ["model is fixed", { model: "acme-2.0" }, ["model"], "model"],
    ["prompt is required in T2V", { prompt: undefined }, ["prompt"], "required"],
    [
      "prompt is required in R2V",
      { prompt: undefined, image_urls: [image] },
      ["prompt"],
      "required",
    ],
    ["prompt is required in EDIT", { prompt: undefined, video_url: video }, ["prompt"], "required"],
    ["prompt holds at most 2500 characters", { prompt: "a".repeat(2501) }, ["prompt"], "length"],
    [
      "prompt has no special tokens",
      { prompt: "a lighthouse <|endoftext|>" },
      ["prompt"],
      "special-token",
    ],
    [
      "first_frame_image and image_urls exclude each other",
      { first_frame_image: image, image_urls: [image] },
      ["image_urls"],
      "mixed_media_not_allowed",
    ],
    [
      "first_frame_image and video_url exclude each other",
      { first_frame_image: image, video_url: video },
      ["video_url"],
      "mixed_media_not_allowed",
    ],
    [
      "first_frame_image is a URL or Data URI",
      { first_frame_image: "a.png" },
      ["first_frame_image"],
      "image-ref",
    ],
    [
      "first_frame_image Data URIs are JPEG, PNG, BMP or WEBP",
      { first_frame_image: "data:image/gif;base64,R0lG" },
      ["first_frame_image"],
      "image-format",
    ],
    ["R2V takes at least 1 image", { image_urls: [] }, ["image_urls"], "count"],
    ["R2V takes at most 9 images", { image_urls: Array(10).fill(image) }, ["image_urls"], "count"],
    [
      "EDIT takes at most 5 images",
      { video_url: video, image_urls: Array(6).fill(image) },
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
      "image_urls Data URIs are JPEG, PNG, BMP or WEBP",
      { image_urls: ["data:image/tiff;base64,SUkq"] },
      ["image_urls", 0],
      "image-format",
    ],
    [
      "video_url is HTTP(S) only",
      { video_url: "data:video/mp4;base64,AAAA" },
      ["video_url"],
      "url-only",
    ],
    [
      "audio_setting is auto or origin",
      { video_url: video, audio_setting: "keep" },
      ["audio_setting"],
      "enum",
    ],
    [
      "audio_setting only with video_url",
      { audio_setting: "auto" },
      ["audio_setting"],
      "audio_setting_only_for_edit",
    ],
    ["resolution is uppercase P", { resolution: "1080p" }, ["resolution"], "enum"],
    ["duration is at least 3", { duration: 2 }, ["duration"], "range"],
    ["duration is at most 15", { duration: 16 }, ["duration"], "range"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["size is one of the ratios", { size: "21:9" }, ["size"], "enum"],
    ["watermark is a boolean", { watermark: "false" }, ["watermark"], "type"],
    ["seed is at most 2147483647", { seed: 2147483648 }, ["seed"], "range"],
    ["seed is not negative", { seed: -1 }, ["seed"], "range"],
    ["an undefined field is an error", { aspect_ratio: "16:9" }, ["aspect_ratio"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video2, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("routes by the highest-priority media field", () => {
    expect(video2.mode?.(minimal)).toBe("T2V");
    expect(video2.mode?.({ ...minimal, image_urls: [image] })).toBe("R2V");
    expect(video2.mode?.({ ...minimal, first_frame_image: image })).toBe("I2V");
    expect(video2.mode?.({ ...minimal, video_url: video, image_urls: [image] })).toBe("EDIT");
  });

  it("expects the requested duration, or the source's in EDIT", () => {
    expect(video2.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: null,
    });
    expect(video2.expectedOutputs({ ...minimal, duration: 12 }).durationSeconds).toBe(12);
    expect(
      video2.expectedOutputs({ ...minimal, video_url: video, duration: 12 }).durationSeconds,
    ).toBeNull();
    expect(video2.estimateCost(minimal)).toBeNull();
  });
});
