import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video6, video6Pixels } from "../../../src/families/video-6.js";

const image = "https://example.com/a.png";
const minimal = { model: "acme2.6", prompt: "a paper boat drifts down a rainy street" };
const i2v = { model: "acme2.6", image_urls: [image] };

describe("video family 6", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video6, minimal)).toEqual([]);
    expect(validateRequest(video6, i2v)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      negative_prompt: "blur",
      aspect_ratio: "4:3",
      resolution: "1080p",
      duration: 15,
      seed: -7,
      prompt_extend: true,
      audio: true,
      audio_url: "https://example.com/song.mp3",
      shot_type: "multi",
      watermark: false,
    };
    expect(validateRequest(video6, rich)).toEqual([]);
    const template = {
      ...i2v,
      image_urls: ["data:image/png;base64,iVBORw0KGgo="],
      prompt: "ignored with a template",
      template: "coupleheart",
      duration: 10,
    };
    expect(validateRequest(video6, template)).toEqual([]);
  });

  it("matches only its own model id", () => {
    const [pattern] = video6.models;
    expect(pattern?.pattern.test("acme2.6")).toBe(true);
    expect(pattern?.pattern.test("acme2.7-r2v")).toBe(false);
    expect(pattern?.pattern.test("acme2.7-videoedit")).toBe(false);
    expect(pattern?.pattern.test("acme2.65")).toBe(false);
  });

  it.each([
    ["model is fixed", { model: "acme2.7-r2v" }, ["model"], "model"],
    ["prompt is required in T2V", { prompt: undefined }, ["prompt"], "required"],
    ["prompt is a string", { prompt: 5 }, ["prompt"], "type"],
    ["image_urls holds exactly one image", { image_urls: [image, image] }, ["image_urls"], "count"],
    ["image_urls is not empty", { image_urls: [] }, ["image_urls"], "count"],
    [
      "image_urls items are URLs or Data URIs",
      { image_urls: ["a.png"] },
      ["image_urls", 0],
      "image-ref",
    ],
    ["aspect_ratio is one of the five ratios", { aspect_ratio: "21:9" }, ["aspect_ratio"], "enum"],
    [
      "aspect_ratio is not supported in I2V",
      { image_urls: [image], aspect_ratio: "16:9" },
      ["aspect_ratio"],
      "only-with",
    ],
    ["480p is unsupported", { resolution: "480p" }, ["resolution"], "enum"],
    ["resolution is lowercase p", { resolution: "1080P" }, ["resolution"], "enum"],
    ["duration is 5, 10 or 15", { duration: 8 }, ["duration"], "enum"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["seed is an integer", { seed: 1.5 }, ["seed"], "type"],
    ["prompt_extend is a boolean", { prompt_extend: "yes" }, ["prompt_extend"], "type"],
    ["audio is a boolean", { audio: 1 }, ["audio"], "type"],
    ["audio_url is a URL", { audio_url: "song.mp3" }, ["audio_url"], "url-only"],
    ["shot_type is single or multi", { shot_type: "double" }, ["shot_type"], "enum"],
    ["watermark is a boolean", { watermark: "no" }, ["watermark"], "type"],
    ["template is one of the listed effects", { ...i2v, template: "spin" }, ["template"], "enum"],
    ["template needs an image", { template: "hug" }, ["template"], "only-with"],
    ["an undefined field is an error", { size: "16:9" }, ["size"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video6, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("names 480p as unsupported", () => {
    const [issue] = validateRequest(video6, { ...minimal, resolution: "480p" });
    expect(issue?.message).toContain("480p is not supported");
  });

  it("routes by image_urls", () => {
    expect(video6.mode?.(minimal)).toBe("T2V");
    expect(video6.mode?.(i2v)).toBe("I2V");
  });

  it("promises the table's size in T2V and follows the image in I2V", () => {
    expect(video6.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: [{ width: 1280, height: 720 }],
      durationSeconds: 5,
      audio: null,
    });
    expect(
      video6.expectedOutputs({ ...minimal, aspect_ratio: "3:4", resolution: "1080p" }).sizes,
    ).toEqual([{ width: 1248, height: 1632 }]);
    expect(video6.expectedOutputs({ ...i2v, duration: 10 })).toMatchObject({
      sizes: null,
      durationSeconds: 10,
    });
    expect(video6Pixels("1:1", "720p")).toEqual({ width: 960, height: 960 });
    expect(video6Pixels("21:9", "720p")).toBeNull();
  });

  it("expects audio when audio or audio_url is sent", () => {
    expect(video6.expectedOutputs({ ...minimal, audio: true }).audio).toBe(true);
    expect(video6.expectedOutputs({ ...minimal, audio_url: "https://e.com/a.mp3" }).audio).toBe(
      true,
    );
    expect(video6.expectedOutputs({ ...minimal, audio: false }).audio).toBeNull();
    expect(video6.estimateCost(minimal)).toBeNull();
  });

  it.each([
    ["16:9", "720p", 1280, 720],
    ["16:9", "1080p", 1920, 1080],
    ["9:16", "720p", 720, 1280],
    ["9:16", "1080p", 1080, 1920],
    ["1:1", "720p", 960, 960],
    ["1:1", "1080p", 1440, 1440],
    ["4:3", "720p", 1088, 832],
    ["4:3", "1080p", 1632, 1248],
    ["3:4", "720p", 832, 1088],
    ["3:4", "1080p", 1248, 1632],
  ])("promises %s at %s as %ix%i", (aspect_ratio, resolution, width, height) => {
    const body = { model: "acme2.6", prompt: "a mug", aspect_ratio, resolution };
    expect(video6.expectedOutputs(body).sizes).toEqual([{ width, height }]);
  });
});
