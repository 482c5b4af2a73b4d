import { describe, expect, it } from "vitest";
import { textResponses } from "../../../src/families/text-responses.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-5", input: "What is the capital of France?" };

const item = (content: unknown[]) => ({ input: [{ role: "user", content }] });
const withTool = (tool: unknown) => ({ tools: [tool] });

describe("responses", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(textResponses, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      model: "acme-5-thinking",
      input: [
        { role: "system", content: [{ type: "input_text", text: "Describe images briefly." }] },
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is in these pictures?" },
            { type: "input_image", image_url: "https://example.com/a.jpg" },
            { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=" },
          ],
        },
        { role: "assistant", content: [{ type: "input_text", text: "Two cats." }] },
      ],
      temperature: 0.7,
      max_tokens: 1024,
      stream: true,
      tools: [
        { type: "web_search" },
        { type: "file_search" },
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather for a city",
            parameters: {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
        },
        {
          type: "remote_mcp",
          remote_mcp: { url: "https://mcp.example.com/sse", auth_token: "tok", timeout: 45 },
        },
      ],
    };
    expect(validateRequest(textResponses, rich)).toEqual([]);
  });

  it("refuses a BMP Data URI in an input_image block, whose list is JPEG, PNG, GIF, WebP", () => {
    const block = { type: "input_image", image_url: "data:image/bmp;base64,Qk0=" };
    expect(validateRequest(textResponses, { ...minimal, ...item([block]) })).toEqual([
      {
        path: ["input", 0, "content", 0, "image_url"],
        rule: "image-format",
        message:
          "a data:image/bmp URI is not one of the formats this field takes (JPEG, PNG, GIF, WEBP)",
      },
    ]);
  });

  it("takes a GIF Data URI in an input_image block, unlike image family B", () => {
    const block = { type: "input_image", image_url: "data:image/gif;base64,R0lGODlhAQABAIAA" };
    expect(validateRequest(textResponses, { ...minimal, ...item([block]) })).toEqual([]);
  });

  it("accepts top_p together with temperature, which this endpoint does not forbid", () => {
    expect(validateRequest(textResponses, { ...minimal, temperature: 1, top_p: 0.5 })).toEqual([]);
  });

  it.each([
    ["model is a non-empty string", { model: "" }, ["model"], "length"],
    ["input is required", { input: undefined }, ["input"], "required"],
    ["a string input is not empty", { input: "" }, ["input"], "length"],
    ["input is a string or an array", { input: { role: "user" } }, ["input"], "type"],
    [
      "an item's role is user, assistant or system",
      { input: [{ role: "tool", content: [] }] },
      ["input", 0, "role"],
      "enum",
    ],
    [
      "an item's content is an array of blocks",
      { input: [{ role: "user", content: "hi" }] },
      ["input", 0, "content"],
      "type",
    ],
    [
      "a block type is input_text or input_image",
      item([{ type: "text", text: "hi" }]),
      ["input", 0, "content", 0, "type"],
      "enum",
    ],
    ["a block has a type", item([{ text: "hi" }]), ["input", 0, "content", 0, "type"], "required"],
    [
      "an input_text block has text",
      item([{ type: "input_text" }]),
      ["input", 0, "content", 0, "text"],
      "required",
    ],
    [
      "a block has no other fields",
      item([{ type: "input_text", text: "hi", image_url: "https://e.com/a.png" }]),
      ["input", 0, "content", 0, "image_url"],
      "unknown-field",
    ],
    [
      "image_url is a URL or a Data URI",
      item([{ type: "input_image", image_url: "ftp://e.com/a.png" }]),
      ["input", 0, "content", 0, "image_url"],
      "image-ref",
    ],
    ["temperature is at most 2", { temperature: 2.1 }, ["temperature"], "range"],
    ["top_p is at least 0", { top_p: -0.1 }, ["top_p"], "range"],
    ["max_tokens is at least 1", { max_tokens: 0 }, ["max_tokens"], "range"],
    ["max_tokens is a JSON number", { max_tokens: "100" }, ["max_tokens"], "json-number"],
    ["stream is a boolean", { stream: 1 }, ["stream"], "type"],
    ["tools is an array", { tools: { type: "web_search" } }, ["tools"], "type"],
    [
      "a tool type is one of the four",
      withTool({ type: "code_interpreter" }),
      ["tools", 0, "type"],
      "enum",
    ],
    [
      "web_search takes no extra fields",
      withTool({ type: "web_search", query: "x" }),
      ["tools", 0, "query"],
      "unknown-field",
    ],
    [
      "a function tool has a function",
      withTool({ type: "function" }),
      ["tools", 0, "function"],
      "required",
    ],
    [
      "a function has a name",
      withTool({ type: "function", function: { description: "d" } }),
      ["tools", 0, "function", "name"],
      "required",
    ],
    [
      "a function has a description",
      withTool({ type: "function", function: { name: "f" } }),
      ["tools", 0, "function", "description"],
      "required",
    ],
    [
      "function parameters are a JSON Schema object",
      withTool({
        type: "function",
        function: { name: "f", description: "d", parameters: "object" },
      }),
      ["tools", 0, "function", "parameters"],
      "type",
    ],
    [
      "a remote MCP tool has a url",
      withTool({ type: "remote_mcp", remote_mcp: {} }),
      ["tools", 0, "remote_mcp", "url"],
      "required",
    ],
    [
      "a remote MCP url is http(s)",
      withTool({ type: "remote_mcp", remote_mcp: { url: "ws://mcp.example.com" } }),
      ["tools", 0, "remote_mcp", "url"],
      "format",
    ],
    [
      "a remote MCP timeout is above 0 seconds",
      withTool({ type: "remote_mcp", remote_mcp: { url: "https://m.example.com", timeout: 0 } }),
      ["tools", 0, "remote_mcp", "timeout"],
      "range",
    ],
    ["an undefined field is an error", { tool_choice: "auto" }, ["tool_choice"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(textResponses, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("checks local images as JPEG, PNG, GIF or WebP of at most 20 MB, with no side limit", () => {
    expect(textResponses.imageInputs).toEqual([
      {
        path: ["input", "*", "content", "*", "image_url"],
        dataUri: true,
        formats: ["jpeg", "png", "gif", "webp"],
        maxBytes: 20 * 1024 * 1024,
      },
    ]);
  });

  it("expects one text answer and states no price", () => {
    expect(textResponses.expectedOutputs(minimal)).toEqual({
      kind: "text",
      count: 1,
      exact: true,
      sizes: null,
    });
    expect(textResponses.estimateCost(minimal)).toBeNull();
  });

  it.each([
    ["temperature is at least 0", { temperature: -1 }, ["temperature"], "range"],
    ["top_p is at most 1", { top_p: 1.5 }, ["top_p"], "range"],
  ] as const)("holds the bounds: %s", (_name, change, path, rule) => {
    const base = { model: "acme-5", input: "hello" };
    expect(validateRequest(textResponses, { ...base, ...change })).toContainEqual(
      expect.objectContaining({ path: [...path], rule }),
    );
  });
});
