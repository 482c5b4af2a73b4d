import { describe, expect, it } from "vitest";
import { TEXT_NATIVE_MODEL_EXAMPLES, textNative } from "../../../src/families/text-native.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-2.5-flash", contents: [{ role: "user", parts: [{ text: "Hi" }] }] };

describe("native content generation", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(textNative, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      model: "acme-2.5-pro-thinking",
      stream: true,
      contents: [
        { role: "user", parts: [{ text: "Write a haiku." }, { text: "About rain." }] },
        { role: "model", parts: [{ text: "Soft rain on the roof" }] },
        { role: "user", parts: [{ text: "Another one." }] },
      ],
      generationConfig: { temperature: 0.4, maxOutputTokens: 200, thinkingConfig: {} },
      safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
    };
    expect(validateRequest(textNative, rich)).toEqual([]);
  });

  it("takes the vendor's functionDeclarations tools and toolConfig with a warning", () => {
    const issues = validateRequest(textNative, {
      ...minimal,
      tools: [{ functionDeclarations: [{ name: "get_weather", description: "Weather" }] }],
      toolConfig: { functionCallingConfig: { mode: "ANY" } },
    });
    expect(issues.map(({ path, rule, severity }) => ({ path, rule, severity }))).toEqual([
      { path: ["tools"], rule: "vendor-field", severity: "warning" },
      { path: ["toolConfig"], rule: "vendor-field", severity: "warning" },
    ]);
    const nameless = validateRequest(textNative, {
      ...minimal,
      tools: [{ functionDeclarations: [{ description: "Weather" }] }],
    });
    expect(nameless).toContainEqual(
      expect.objectContaining({ path: ["tools", 0, "functionDeclarations", 0, "name"] }),
    );
  });

  it("accepts the four variants, with any vendor word", () => {
    for (const model of [...TEXT_NATIVE_MODEL_EXAMPLES, "Other-2.5-flash-lite"]) {
      expect(validateRequest(textNative, { ...minimal, model })).toEqual([]);
    }
  });

  it("refuses a model outside the four variants, naming them and passthrough", () => {
    for (const model of ["acme-3.0-ultra", "acme-2.5-ultra", "acme-2.5-flash-thinking"]) {
      expect(validateRequest(textNative, { ...minimal, model })).toEqual([
        {
          path: ["model"],
          rule: "model",
          message:
            "must be one of <brand>-2.5-flash, <brand>-2.5-pro, <brand>-2.5-flash-lite, <brand>-2.5-pro-thinking; set passthrough: true to send a newer model unchecked",
        },
      ]);
    }
  });

  it.each([
    ["model is required", { model: undefined }, ["model"], "required"],
    ["model is one of the variants", { model: "" }, ["model"], "model"],
    ["stream is a boolean", { stream: "true" }, ["stream"], "type"],
    ["contents is required", { contents: undefined }, ["contents"], "required"],
    ["contents holds at least one item", { contents: [] }, ["contents"], "count"],
    [
      "a part has text",
      { contents: [{ role: "user", parts: [{}] }] },
      ["contents", 0, "parts", 0, "text"],
      "required",
    ],
    [
      "a part has only text",
      { contents: [{ role: "user", parts: [{ text: "x", inlineData: {} }] }] },
      ["contents", 0, "parts", 0, "inlineData"],
      "unknown-field",
    ],
    ["generationConfig is an object", { generationConfig: [] }, ["generationConfig"], "type"],
    [
      "safetySettings is an array of objects",
      { safetySettings: ["BLOCK_NONE"] },
      ["safetySettings", 0],
      "type",
    ],
    [
      "an undefined field is an error",
      { generation_config: {} },
      ["generation_config"],
      "unknown-field",
    ],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(textNative, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("puts the model and the method in the path", () => {
    expect(textNative.path?.(minimal)).toBe("/v1beta/models/acme-2.5-flash:generateContent");
    expect(textNative.path?.({ ...minimal, stream: true })).toBe(
      "/v1beta/models/acme-2.5-flash:streamGenerateContent",
    );
    expect(textNative.path?.({ ...minimal, stream: false })).toBe(
      "/v1beta/models/acme-2.5-flash:generateContent",
    );
    expect(textNative.path?.({ ...minimal, model: "acme/2.5 pro" })).toBe(
      "/v1beta/models/acme%2F2.5%20pro:generateContent",
    );
  });

  it("expects one text answer and states no price", () => {
    expect(textNative.expectedOutputs(minimal)).toEqual({
      kind: "text",
      count: 1,
      exact: true,
      sizes: null,
    });
    expect(textNative.estimateCost(minimal)).toBeNull();
    expect(textNative.endpoint).toBe("/v1beta/models/{model}:generateContent");
  });

  it("accepts content items whatever their role, since the spec names no role values", () => {
    const contents = [{ parts: [{ text: "hello" }] }, { role: "function", parts: [] }];
    expect(validateRequest(textNative, { model: "acme-2.5-flash", contents })).toEqual([]);
  });
});
