import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video3 } from "../../../src/families/video-3.js";

const minimal = { model: "acme-v4-fast", prompt: "a fox running through snow" };
const image = "https://example.com/a.png";
const video = "https://example.com/clip.mp4";
const refImage = (tag: string, type = "image", count = 1) => ({
  tag,
  type,
  image_urls: Array(count).fill(image),
});

describe("video family 3", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video3, minimal)).toEqual([]);
  });

  it("accepts a rich I2V request", () => {
    const i2v = {
      model: "acme-v4-std",
      prompt: "@mid the fox leaps, then lands",
      duration: 8,
      resolution: "720p",
      aspect_ratio: "3:4",
      prompt_optimizer: false,
      first_frame_image: image,
      end_frame_image: "https://example.com/b.jpg",
      mid_frame_images: [
        { tag: "@mid", image_url: image, time_stamp: 4.5 },
        { tag: "@mid", image_url: image, time_stamp: -1 },
      ],
    };
    expect(validateRequest(video3, i2v)).toEqual([]);
  });

  it("accepts rich Omni requests", () => {
    const omni = {
      ...minimal,
      prompt: "@fox and @hill, moving like @ref",
      ref_images: [
        { ...refImage("@fox", "image", 5), audio_url: "https://example.com/bark.mp3" },
        refImage("@hill"),
      ],
      ref_videos: [{ tag: "@ref", type: "reference", video_url: video }],
    };
    expect(validateRequest(video3, omni)).toEqual([]);
    const grid = { ...minimal, prompt: "@grid", ref_images: [refImage("@grid", "grid")] };
    expect(validateRequest(video3, grid)).toEqual([]);
    const extend = {
      ...minimal,
      prompt: "continue @clip",
      ref_videos: [{ tag: "@clip", type: "extend", video_url: video }],
    };
    expect(validateRequest(video3, extend)).toEqual([]);
  });

  it.each([
    ["model is fast or std", { model: "acme-v4-pro" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["prompt holds at most 1280 tokens", { prompt: "word ".repeat(1281) }, ["prompt"], "length"],
    ["duration is 3 to 15", { duration: 16 }, ["duration"], "range"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["resolution is lowercase p", { resolution: "720P" }, ["resolution"], "enum"],
    ["aspect_ratio is one of the ratios", { aspect_ratio: "21:9" }, ["aspect_ratio"], "enum"],
    ["prompt_optimizer is a boolean", { prompt_optimizer: "yes" }, ["prompt_optimizer"], "type"],
    [
      "first_frame_image is a public URL",
      { first_frame_image: "data:image/png;base64,iVBO" },
      ["first_frame_image"],
      "url-only",
    ],
    [
      "end_frame_image is a public URL",
      { end_frame_image: "b.png" },
      ["end_frame_image"],
      "url-only",
    ],
    [
      "I2V and Omni fields cannot be combined",
      { prompt: "@a", first_frame_image: image, ref_images: [refImage("@a")] },
      ["ref_images"],
      "mode-conflict",
    ],
    [
      "mid_frame_images holds at most 6",
      {
        prompt: "@m",
        mid_frame_images: Array(7).fill({ tag: "@m", image_url: image, time_stamp: 1 }),
      },
      ["mid_frame_images"],
      "count",
    ],
    [
      "time_stamp lies strictly inside the duration",
      { prompt: "@m", mid_frame_images: [{ tag: "@m", image_url: image, time_stamp: 5 }] },
      ["mid_frame_images", 0, "time_stamp"],
      "range",
    ],
    [
      "time_stamp is not 0",
      { prompt: "@m", mid_frame_images: [{ tag: "@m", image_url: image, time_stamp: 0 }] },
      ["mid_frame_images", 0, "time_stamp"],
      "range",
    ],
    [
      "mid_frame_images items have a tag, image_url and time_stamp",
      { prompt: "@m", mid_frame_images: [{ tag: "@m", image_url: image }] },
      ["mid_frame_images", 0, "time_stamp"],
      "required",
    ],
    [
      "tags start with @",
      { prompt: "hero", ref_images: [refImage("hero")] },
      ["ref_images", 0, "tag"],
      "format",
    ],
    [
      "the prompt contains every tag",
      { prompt: "a fox", ref_images: [refImage("@fox")] },
      ["ref_images", 0, "tag"],
      "tag-in-prompt",
    ],
    [
      "ref_images items share one type",
      { prompt: "@a @b", ref_images: [refImage("@a"), refImage("@b", "grid")] },
      ["ref_images"],
      "same-type",
    ],
    [
      "grid takes exactly 1 item",
      { prompt: "@a @b", ref_images: [refImage("@a", "grid"), refImage("@b", "grid")] },
      ["ref_images"],
      "count",
    ],
    [
      "a grid item takes exactly 1 image",
      { prompt: "@a", ref_images: [refImage("@a", "grid", 2)] },
      ["ref_images", 0, "image_urls"],
      "count",
    ],
    [
      "image takes at most 3 items",
      { prompt: "@a", ref_images: Array(4).fill(refImage("@a")) },
      ["ref_images"],
      "count",
    ],
    [
      "an image item takes at most 5 images",
      { prompt: "@a", ref_images: [refImage("@a", "image", 6)] },
      ["ref_images", 0, "image_urls"],
      "count",
    ],
    [
      "an image item takes at least 1 image",
      { prompt: "@a", ref_images: [refImage("@a", "image", 0)] },
      ["ref_images", 0, "image_urls"],
      "count",
    ],
    [
      "ref_images type is image or grid",
      { prompt: "@a", ref_images: [refImage("@a", "photo")] },
      ["ref_images", 0, "type"],
      "enum",
    ],
    [
      "audio_url only with type image",
      {
        prompt: "@a",
        ref_images: [{ ...refImage("@a", "grid"), audio_url: "https://e.com/a.mp3" }],
      },
      ["ref_images", 0, "audio_url"],
      "only-with",
    ],
    [
      "ref_videos holds at most 1",
      {
        prompt: "@a @b",
        ref_videos: [
          { tag: "@a", type: "reference", video_url: video },
          { tag: "@b", type: "reference", video_url: video },
        ],
      },
      ["ref_videos"],
      "count",
    ],
    [
      "ref_videos type is reference or extend",
      { prompt: "@a", ref_videos: [{ tag: "@a", type: "continue", video_url: video }] },
      ["ref_videos", 0, "type"],
      "enum",
    ],
    [
      "ref_videos video_url is a URL",
      { prompt: "@a", ref_videos: [{ tag: "@a", type: "reference", video_url: "clip.mp4" }] },
      ["ref_videos", 0, "video_url"],
      "url-only",
    ],
    [
      "extend cannot combine with ref_images",
      {
        prompt: "@a @b",
        ref_images: [refImage("@a")],
        ref_videos: [{ tag: "@b", type: "extend", video_url: video }],
      },
      ["ref_videos", 0, "type"],
      "mutually-exclusive",
    ],
    [
      "nested items reject unknown fields",
      { prompt: "@a", ref_videos: [{ tag: "@a", type: "extend", video_url: video, start: 1 }] },
      ["ref_videos", 0, "start"],
      "unknown-field",
    ],
    ["an undefined field is an error", { audio: true }, ["audio"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video3, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("routes to T2V, I2V or Omni by the fields present", () => {
    expect(video3.mode?.(minimal)).toBe("T2V");
    expect(video3.mode?.({ ...minimal, end_frame_image: image })).toBe("I2V");
    expect(video3.mode?.({ ...minimal, ref_images: [refImage("@a")] })).toBe("Omni");
  });

  it("expects the requested duration without audio, unless a reference video sets it", () => {
    expect(video3.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: false,
    });
    const extend = {
      ...minimal,
      duration: 9,
      ref_videos: [{ tag: "@a", type: "extend", video_url: video }],
    };
    expect(video3.expectedOutputs(extend).durationSeconds).toBe(9);
    const reference = {
      ...minimal,
      duration: 9,
      ref_videos: [{ tag: "@a", type: "reference", video_url: video }],
    };
    expect(video3.expectedOutputs(reference).durationSeconds).toBeNull();
    expect(video3.estimateCost(minimal)).toBeNull();
  });

  it("finds a tag written into running text, as in Chinese prompts", () => {
    const body = {
      model: "acme-v4-std",
      prompt: "参考@图1的风格",
      ref_images: [{ tag: "@图1", type: "image", image_urls: ["https://e.com/a.png"] }],
    };
    expect(validateRequest(video3, body)).toEqual([]);
  });

  it("refuses a reference video that is not MP4 or MOV", () => {
    const body = {
      model: "acme-v4-std",
      prompt: "@clip",
      ref_videos: [{ tag: "@clip", type: "reference", video_url: "https://e.com/a.webm" }],
    };
    expect(validateRequest(video3, body)).toContainEqual(
      expect.objectContaining({ path: ["ref_videos", 0, "video_url"], rule: "format" }),
    );
  });

  it("expects the reference video's audio, and silence otherwise", () => {
    const reference = {
      model: "acme-v4-std",
      prompt: "@clip",
      ref_videos: [{ tag: "@clip", type: "reference", video_url: "https://e.com/a.mp4" }],
    };
    expect(video3.expectedOutputs(reference)).toMatchObject({ audio: null, durationSeconds: null });
    expect(video3.expectedOutputs({ model: "acme-v4-std", prompt: "a mug" })).toMatchObject({
      audio: false,
      durationSeconds: 5,
    });
  });
});
