import { describe, expect, it } from "vitest";
import { imageD } from "../../../src/families/image-d.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-imagine-1.0-fast", prompt: "a red kite over green hills" };

describe("image family D", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(imageD, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = { ...minimal, model: "acme-imagine-1.0-pro_v2.1", size: "16:9", n: 10 };
    expect(validateRequest(imageD, rich)).toEqual([]);
    expect(validateRequest(imageD, { ...minimal, model: "acme-imagine-1.0-editor" })).toEqual([]);
  });

  it.each([
    ["model needs a suffix", { model: "acme-imagine-1.0" }, ["model"], "model"],
    ["model version is 1.0", { model: "acme-imagine-2.0-fast" }, ["model"], "model"],
    [
      "edit models belong to the edits endpoint",
      { model: "acme-imagine-1.0-edit-v1" },
      ["model"],
      "model",
    ],
    ["prompt is required", { prompt: undefined }, ["prompt"], "required"],
    ["size must be one of the list", { size: "4:3" }, ["size"], "enum"],
    ["n is at most 10", { n: 11 }, ["n"], "range"],
    ["n is at least 1", { n: 0 }, ["n"], "range"],
    ["n must be a JSON number", { n: "2" }, ["n"], "json-number"],
    [
      "an undefined field is an error",
      { image_urls: ["https://e.com/a.png"] },
      ["image_urls"],
      "unknown-field",
    ],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(imageD, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("does not claim the edits endpoint's model ids", () => {
    expect(imageD.models.some((m) => m.pattern.test("acme-imagine-1.0-edit-v1"))).toBe(false);
    expect(imageD.models.every((m) => m.pattern.test(m.example))).toBe(true);
  });

  it("expects n images of unstated pixel size", () => {
    expect(imageD.expectedOutputs({ ...minimal, n: 3 })).toEqual({
      kind: "image",
      count: 3,
      exact: true,
      sizes: null,
    });
    expect(imageD.expectedOutputs(minimal).count).toBe(1);
    expect(imageD.estimateCost(minimal)).toBeNull();
  });
});
