import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video9 } from "../../../src/families/video-9.js";

const image = "https://example.com/a.png";
const minimal = { model: "acme-1-0-pro-fast", prompt: "a fox runs through fresh snow" };
const quality = { ...minimal, model: "acme-1-0-pro-quality" };

describe("video family 9", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video9, minimal)).toEqual([]);
    expect(validateRequest(video9, quality)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...quality,
      duration: 12,
      aspect_ratio: "21:9",
      resolution: "720p",
      seed: 2 ** 32 - 1,
      image_with_roles: [
        { url: image, role: "first_frame" },
        { url: image, role: "last_frame" },
        { url: image, role: "reference", reference_voice: "https://example.com/voice.wav" },
      ],
    };
    expect(validateRequest(video9, rich)).toEqual([]);
    const firstFrame = { ...minimal, image_urls: [image], resolution: "1080p", seed: -1 };
    expect(validateRequest(video9, firstFrame)).toEqual([]);
    const fastRoles = { ...minimal, image_with_roles: [{ url: image, role: "first_frame" }] };
    expect(validateRequest(video9, fastRoles)).toEqual([]);
  });

  it.each([
    ["model is fast or quality", { model: "acme-1-0-pro" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["duration is at least 2", { duration: 1 }, ["duration"], "range"],
    ["duration is at most 12", { duration: 13 }, ["duration"], "range"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["aspect_ratio is one of six", { aspect_ratio: "2:1" }, ["aspect_ratio"], "enum"],
    ["resolution is lowercase p", { resolution: "720P" }, ["resolution"], "enum"],
    ["seed is at least -1", { seed: -2 }, ["seed"], "range"],
    ["seed is at most 2^32-1", { seed: 2 ** 32 }, ["seed"], "range"],
    ["image_urls holds exactly one image", { image_urls: [image, image] }, ["image_urls"], "count"],
    [
      "image_urls are public URLs",
      { image_urls: ["data:image/png;base64,iVBO"] },
      ["image_urls", 0],
      "url-only",
    ],
    [
      "image_urls excludes image_with_roles",
      {
        image_urls: [image],
        image_with_roles: [{ url: image, role: "reference" }],
        resolution: "720p",
      },
      ["image_with_roles"],
      "mutually-exclusive",
    ],
    [
      "role is first_frame, last_frame or reference",
      { image_with_roles: [{ url: image, role: "middle" }] },
      ["image_with_roles", 0, "role"],
      "enum",
    ],
    [
      "an item url is a public URL",
      { image_with_roles: [{ url: "a.png", role: "first_frame" }] },
      ["image_with_roles", 0, "url"],
      "url-only",
    ],
    [
      "reference_voice is a URL",
      { image_with_roles: [{ url: image, role: "first_frame", reference_voice: "v.wav" }] },
      ["image_with_roles", 0, "reference_voice"],
      "url-only",
    ],
    [
      "an item has no other fields",
      { image_with_roles: [{ url: image, role: "first_frame", weight: 1 }] },
      ["image_with_roles", 0, "weight"],
      "unknown-field",
    ],
    [
      "one image per role",
      {
        image_with_roles: [
          { url: image, role: "first_frame" },
          { url: image, role: "first_frame" },
        ],
      },
      ["image_with_roles", 1, "role"],
      "duplicate-role",
    ],
    [
      "last_frame is only on quality",
      { image_with_roles: [{ url: image, role: "last_frame" }] },
      ["image_with_roles", 0, "role"],
      "model",
    ],
    [
      "fast cannot use first_frame and last_frame together",
      {
        image_with_roles: [
          { url: image, role: "first_frame" },
          { url: image, role: "last_frame" },
        ],
      },
      ["image_with_roles", 1, "role"],
      "model",
    ],
    [
      "1080p is unsupported with a reference image",
      { image_with_roles: [{ url: image, role: "reference" }], resolution: "1080p" },
      ["resolution"],
      "mutually-exclusive",
    ],
    [
      "the default 1080p is unsupported with a reference image",
      { image_with_roles: [{ url: image, role: "reference" }] },
      ["resolution"],
      "mutually-exclusive",
    ],
    [
      "an undefined field is an error",
      { negative_prompt: "x" },
      ["negative_prompt"],
      "unknown-field",
    ],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video9, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("requires a role on every image_with_roles item", () => {
    const issues = validateRequest(video9, { ...minimal, image_with_roles: [{ url: image }] });
    expect(issues).toContainEqual(
      expect.objectContaining({ path: ["image_with_roles", 0, "role"], rule: "required" }),
    );
  });

  it("expects the requested or default duration", () => {
    expect(video9.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: null,
    });
    expect(video9.expectedOutputs({ ...minimal, duration: 9 }).durationSeconds).toBe(9);
    expect(video9.estimateCost(minimal)).toBeNull();
  });

  it("takes only the listed aspect ratios", () => {
    const body = { model: "acme-1-0-pro-fast", prompt: "a mug", aspect_ratio: "2:3" };
    expect(validateRequest(video9, body)).toContainEqual(
      expect.objectContaining({ path: ["aspect_ratio"], rule: "enum" }),
    );
  });
});
