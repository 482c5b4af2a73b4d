import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video1 } from "../../../src/families/video-1.js";

const minimal = { model: "acme-video-2.3", prompt: "a paper boat drifting down a gutter" };

describe("video family 1", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video1, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      model: "acme-video-2.3-Fast",
      prompt: "[推进] a paper boat drifting down a gutter [跟随]",
      duration: 6,
      resolution: "1080p",
      first_frame_image: "data:image/png;base64,iVBORw0KGgo=",
      prompt_optimizer: false,
      fast_pretreatment: true,
      watermark: false,
    };
    expect(validateRequest(video1, rich)).toEqual([]);
    expect(validateRequest(video1, { ...minimal, duration: 10, resolution: "768p" })).toEqual([]);
    expect(
      validateRequest(video1, { ...minimal, first_frame_image: "https://example.com/a.png" }),
    ).toEqual([]);
  });

  it.each([
    [
      "model must be one of the two ids, in exact case",
      { model: "acme-video-2.3-fast" },
      ["model"],
      "model",
    ],
    [
      "the Fast model needs a first frame",
      { model: "acme-video-2.3-Fast" },
      ["first_frame_image"],
      "required",
    ],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["prompt holds at most 2000 characters", { prompt: "a".repeat(2001) }, ["prompt"], "length"],
    ["duration is 6 or 10", { duration: 8 }, ["duration"], "enum"],
    ["duration must be a JSON number", { duration: "6" }, ["duration"], "json-number"],
    [
      "1080p allows only 6 seconds",
      { duration: 10, resolution: "1080p" },
      ["duration"],
      "only-with",
    ],
    ["resolution is lowercase", { resolution: "1080P" }, ["resolution"], "enum"],
    [
      "first_frame_image is a URL or Data URI",
      { first_frame_image: "ftp://x/a.png" },
      ["first_frame_image"],
      "image-ref",
    ],
    ["prompt_optimizer is a boolean", { prompt_optimizer: "true" }, ["prompt_optimizer"], "type"],
    ["fast_pretreatment is a boolean", { fast_pretreatment: 1 }, ["fast_pretreatment"], "type"],
    ["watermark is a boolean", { watermark: "no" }, ["watermark"], "type"],
    [
      "square brackets hold only camera commands",
      { prompt: "a boat [zoom in]" },
      ["prompt"],
      "camera-command",
    ],
    ["an undefined field is an error", { aspect_ratio: "16:9" }, ["aspect_ratio"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video1, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("suggests the camera command a typo meant", () => {
    const [issue] = validateRequest(video1, { ...minimal, prompt: "a boat [左移动]" });
    expect(issue?.rule).toBe("camera-command");
    expect(issue?.severity).toBe("warning");
    expect(issue?.message).toContain('did you mean "[左移]"');
  });

  it("lists the commands when nothing is close", () => {
    const [issue] = validateRequest(video1, { ...minimal, prompt: "a boat [pan]" });
    expect(issue?.message).toContain("[固定]");
    expect(issue?.message).not.toContain("did you mean");
  });

  it("expects one clip of the requested or default duration", () => {
    expect(video1.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 6,
      audio: null,
    });
    expect(video1.expectedOutputs({ ...minimal, duration: 10 }).durationSeconds).toBe(10);
    expect(video1.estimateCost(minimal)).toBeNull();
  });
});
