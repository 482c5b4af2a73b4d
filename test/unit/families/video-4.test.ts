import { describe, expect, it } from "vitest";
import { validateRequest } from "../../../src/families/validate.js";
import { video4 } from "../../../src/families/video-4.js";

const minimal = { model: "acme-v3", prompt: "a tram crossing a bridge at dusk" };
const image = "https://example.com/a.png";
const element = (name: string) => ({
  name,
  description: `the ${name}`,
  element_input_urls: [image, image],
});
const shots = (...durations: number[]) =>
  durations.map((duration, index) => ({ index: index + 1, prompt: `shot ${index + 1}`, duration }));

describe("video family 4", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(video4, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      prompt: "@tram crosses the bridge while @driver waves",
      negative_prompt: "blur",
      mode: "pro",
      duration: 10,
      aspect_ratio: "9:16",
      image_urls: [image, "https://example.com/last.png"],
      watermark: false,
      audio: true,
      multi_shot: true,
      shot_type: "customize",
      multi_prompt: shots(3, 3, 4),
      element_list: [
        element("tram"),
        { ...element("driver"), element_input_urls: Array(4).fill(image) },
      ],
    };
    expect(validateRequest(video4, rich)).toEqual([]);
    const intelligent = { model: "acme-v3", multi_shot: true, shot_type: "intelligence" };
    expect(validateRequest(video4, intelligent)).toEqual([]);
    expect(validateRequest(video4, { ...minimal, size: "1:1", mode: "4k" })).toEqual([]);
    expect(validateRequest(video4, { ...minimal, prompt: "mail me@example.com" })).toEqual([]);
  });

  const customize = { multi_shot: true, shot_type: "customize" };

  it.each([
    ["model is fixed", { model: "acme-v2" }, ["model"], "model"],
    ["prompt is required without multi_shot", { prompt: undefined }, ["prompt"], "required"],
    ["negative_prompt is a string", { negative_prompt: ["blur"] }, ["negative_prompt"], "type"],
    ["mode is std, pro or 4k", { mode: "4K" }, ["mode"], "enum"],
    ["duration is 3 to 15", { duration: 2 }, ["duration"], "range"],
    ["duration must be a JSON number", { duration: "5" }, ["duration"], "json-number"],
    ["aspect_ratio is 16:9, 9:16 or 1:1", { aspect_ratio: "4:3" }, ["aspect_ratio"], "enum"],
    ["size takes the same ratios", { size: "4:3" }, ["size"], "enum"],
    [
      "size and aspect_ratio do not disagree",
      { size: "1:1", aspect_ratio: "16:9" },
      ["size"],
      "mutually-exclusive",
    ],
    ["image_urls holds at most 2", { image_urls: [image, image, image] }, ["image_urls"], "count"],
    [
      "image_urls are public URLs",
      { image_urls: ["data:image/png;base64,iVBO"] },
      ["image_urls", 0],
      "url-only",
    ],
    ["audio is a boolean", { audio: "true" }, ["audio"], "type"],
    ["watermark is a boolean", { watermark: 0 }, ["watermark"], "type"],
    ["multi_shot needs shot_type", { multi_shot: true }, ["shot_type"], "required"],
    [
      "shot_type is customize or intelligence",
      { multi_shot: true, shot_type: "auto" },
      ["shot_type"],
      "enum",
    ],
    ["customize needs multi_prompt", customize, ["multi_prompt"], "required"],
    [
      "multi_prompt holds at least 1 shot",
      { ...customize, multi_prompt: [] },
      ["multi_prompt"],
      "count",
    ],
    [
      "multi_prompt holds at most 6 shots",
      { ...customize, multi_prompt: shots(1, 1, 1, 1, 1, 1, 1) },
      ["multi_prompt"],
      "count",
    ],
    [
      "shot indexes are continuous from 1",
      {
        ...customize,
        multi_prompt: [
          { index: 1, prompt: "a", duration: 2 },
          { index: 3, prompt: "b", duration: 3 },
        ],
      },
      ["multi_prompt", 1, "index"],
      "shot-index",
    ],
    [
      "a shot prompt holds at most 512 characters",
      { ...customize, multi_prompt: [{ index: 1, prompt: "a".repeat(513), duration: 5 }] },
      ["multi_prompt", 0, "prompt"],
      "length",
    ],
    [
      "a shot lasts at least 1 second",
      { ...customize, multi_prompt: shots(0, 5) },
      ["multi_prompt", 0, "duration"],
      "range",
    ],
    [
      "a shot lasts at most the total",
      { ...customize, duration: 5, multi_prompt: shots(6) },
      ["multi_prompt", 0, "duration"],
      "range",
    ],
    [
      "shot durations sum to the total",
      { ...customize, duration: 10, multi_prompt: shots(3, 3) },
      ["multi_prompt"],
      "shot-sum",
    ],
    [
      "element_list holds at most 3",
      { element_list: ["a", "b", "c", "d"].map(element) },
      ["element_list"],
      "count",
    ],
    [
      "an element needs a description",
      { element_list: [{ name: "a", element_input_urls: [image, image] }] },
      ["element_list", 0, "description"],
      "required",
    ],
    [
      "an element has at least 2 images",
      { element_list: [{ ...element("a"), element_input_urls: [image] }] },
      ["element_list", 0, "element_input_urls"],
      "count",
    ],
    [
      "an element has at most 4 images",
      { element_list: [{ ...element("a"), element_input_urls: Array(5).fill(image) }] },
      ["element_list", 0, "element_input_urls"],
      "count",
    ],
    [
      "@name in the prompt names an element",
      { prompt: "@trem crosses the bridge", element_list: [element("tram")] },
      ["prompt"],
      "unknown-element",
    ],
    ["an undefined field is an error", { resolution: "1080p" }, ["resolution"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(video4, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("suggests the element a misspelt @name meant", () => {
    const body = { ...minimal, prompt: "@trem crosses", element_list: [element("tram")] };
    expect(validateRequest(video4, body)[0]?.message).toContain('did you mean "tram"');
  });

  it("expects the requested duration and audio flag", () => {
    expect(video4.expectedOutputs(minimal)).toEqual({
      kind: "video",
      count: 1,
      exact: true,
      sizes: null,
      durationSeconds: 5,
      audio: false,
    });
    const loud = video4.expectedOutputs({ ...minimal, duration: 15, audio: true });
    expect(loud).toMatchObject({ durationSeconds: 15, audio: true });
    expect(video4.estimateCost(minimal)).toBeNull();
  });

  it("accepts size and aspect_ratio together when they agree", () => {
    const body = { model: "acme-v3", prompt: "a mug", size: "1:1", aspect_ratio: "1:1" };
    expect(validateRequest(video4, body)).toEqual([]);
  });
});
