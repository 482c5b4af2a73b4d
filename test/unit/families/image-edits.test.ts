import { describe, expect, it } from "vitest";
import { imageEdits } from "../../../src/families/image-edits.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = {
  model: "acme-imagine-1.0-edit-v1",
  prompt: "make the sky stormy",
  image_urls: ["https://example.com/a.png"],
};

describe("image edits", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(imageEdits, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      image_urls: ["data:image/png;base64,iVBORw0KGgo=", "https://example.com/b.jpg"],
      n: 10,
    };
    expect(validateRequest(imageEdits, rich)).toEqual([]);
  });

  it.each([
    ["model is an edit model", { model: "acme-imagine-1.0-v1" }, ["model"], "model"],
    ["model needs a suffix after edit-", { model: "acme-imagine-1.0-edit-" }, ["model"], "model"],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["image_urls is required", { image_urls: undefined }, ["image_urls"], "required"],
    ["image_urls holds at least one image", { image_urls: [] }, ["image_urls"], "count"],
    [
      "image_urls refuses http://",
      { image_urls: ["http://example.com/a.png"] },
      ["image_urls", 0],
      "https-only",
    ],
    [
      "image_urls items are https URLs or Data URIs",
      { image_urls: ["a.png"] },
      ["image_urls", 0],
      "image-ref",
    ],
    ["n is at most 10", { n: 11 }, ["n"], "range"],
    ["n must be a JSON number", { n: "1" }, ["n"], "json-number"],
    ["an undefined field is an error", { size: "1:1" }, ["size"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(imageEdits, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("posts to the edits endpoint on the image lane", () => {
    expect(imageEdits.endpoint).toBe("/v1/images/edits");
    expect(imageEdits.lane).toBe("image");
    expect(imageEdits.models.every((m) => m.pattern.test(m.example))).toBe(true);
  });

  it("expects n images of unstated pixel size", () => {
    expect(imageEdits.expectedOutputs({ ...minimal, n: 2 })).toEqual({
      kind: "image",
      count: 2,
      exact: true,
      sizes: null,
    });
    expect(imageEdits.estimateCost(minimal)).toBeNull();
  });

  it.each([
    ["n is at least 1", { n: 0 }, ["n"], "range"],
    ["n is at most 10", { n: 11 }, ["n"], "range"],
  ] as const)("holds the bounds: %s", (_name, change, path, rule) => {
    const base = {
      model: "acme-imagine-1.0-edit-v1",
      prompt: "blue",
      image_urls: ["https://e.com/a.png"],
    };
    expect(validateRequest(imageEdits, { ...base, ...change })).toContainEqual(
      expect.objectContaining({ path: [...path], rule }),
    );
  });
});
