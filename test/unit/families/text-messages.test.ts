import { describe, expect, it } from "vitest";
import { textMessages } from "../../../src/families/text-messages.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-sonnet", messages: [{ role: "user", content: "Hello" }] };

const blocks = (content: unknown[]) => ({ messages: [{ role: "user", content }] });

describe("messages", () => {
  it("accepts a minimal request, max_tokens being optional", () => {
    expect(validateRequest(textMessages, minimal)).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      model: "acme-opus-thinking",
      max_tokens: 1024,
      system: [{ type: "text", text: "You are a careful assistant." }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this image?" },
            { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
            {
              type: "image",
              source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
            },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "cat" } }],
        },
        { role: "assistant", content: "It is" },
      ],
      temperature: 0.5,
      top_k: 40,
      stream: true,
      stop_sequences: ["\n\nHuman:", "END"],
      metadata: { user_id: "user-42" },
      tools: [
        {
          name: "lookup",
          description: "Look a word up",
          input_schema: { type: "object", properties: { q: { type: "string" } } },
        },
        { type: "computer_20241022", name: "computer", display_width_px: 1024 },
        { type: "text_editor_20241022", name: "str_replace_editor" },
        { type: "bash_20241022", name: "bash" },
      ],
      tool_choice: { type: "tool", name: "lookup" },
    };
    expect(validateRequest(textMessages, rich)).toEqual([]);
    expect(validateRequest(textMessages, { ...minimal, system: "Be brief.", top_p: 0.9 })).toEqual(
      [],
    );
    expect(validateRequest(textMessages, { ...minimal, tool_choice: { type: "any" } })).toEqual([]);
  });

  it.each([
    ["model is a non-empty string", { model: "" }, ["model"], "length"],
    ["messages is required", { messages: undefined }, ["messages"], "required"],
    ["messages holds at least one message", { messages: [] }, ["messages"], "count"],
    [
      "a role is user or assistant",
      { messages: [{ role: "system", content: "x" }] },
      ["messages", 0, "role"],
      "enum",
    ],
    [
      "content is a string or an array of blocks",
      { messages: [{ role: "user", content: 7 }] },
      ["messages", 0, "content"],
      "type",
    ],
    [
      "a block type is text, image or tool_use",
      blocks([{ type: "document", text: "x" }]),
      ["messages", 0, "content", 0, "type"],
      "enum",
    ],
    [
      "a text block has text",
      blocks([{ type: "text" }]),
      ["messages", 0, "content", 0, "text"],
      "required",
    ],
    [
      "an image source type is url or base64",
      blocks([{ type: "image", source: { type: "file", url: "https://e.com/a.png" } }]),
      ["messages", 0, "content", 0, "source", "type"],
      "enum",
    ],
    [
      "a url source takes URLs, not Data URIs",
      blocks([{ type: "image", source: { type: "url", url: "data:image/png;base64,AA==" } }]),
      ["messages", 0, "content", 0, "source", "url"],
      "url-only",
    ],
    [
      "a base64 source has a media_type",
      blocks([{ type: "image", source: { type: "base64", data: "AA==" } }]),
      ["messages", 0, "content", 0, "source", "media_type"],
      "required",
    ],
    [
      "a tool_use block has an id",
      blocks([{ type: "tool_use", name: "f", input: {} }]),
      ["messages", 0, "content", 0, "id"],
      "required",
    ],
    [
      "a tool_use input is an object",
      blocks([{ type: "tool_use", id: "t", name: "f", input: "x" }]),
      ["messages", 0, "content", 0, "input"],
      "type",
    ],
    ["max_tokens is at least 1", { max_tokens: 0 }, ["max_tokens"], "range"],
    ["max_tokens is a JSON number", { max_tokens: "1024" }, ["max_tokens"], "json-number"],
    ["system is a string or an array", { system: { text: "x" } }, ["system"], "type"],
    [
      "system blocks are of type text",
      { system: [{ type: "image", text: "x" }] },
      ["system", 0, "type"],
      "enum",
    ],
    ["temperature is at most 1", { temperature: 1.5 }, ["temperature"], "range"],
    ["top_p is at most 1", { top_p: 2 }, ["top_p"], "range"],
    [
      "top_p and temperature are not both set",
      { temperature: 0.5, top_p: 0.9 },
      ["top_p"],
      "either-or",
    ],
    ["top_k is an integer", { top_k: 2.5 }, ["top_k"], "type"],
    ["top_k is at least 1", { top_k: 0 }, ["top_k"], "range"],
    ["stream is a boolean", { stream: "yes" }, ["stream"], "type"],
    [
      "stop_sequences holds at most 4",
      { stop_sequences: ["a", "b", "c", "d", "e"] },
      ["stop_sequences"],
      "count",
    ],
    ["stop_sequences is an array", { stop_sequences: "END" }, ["stop_sequences"], "type"],
    [
      "metadata.user_id is a string",
      { metadata: { user_id: 42 } },
      ["metadata", "user_id"],
      "type",
    ],
    [
      "metadata has only user_id",
      { metadata: { session: "s" } },
      ["metadata", "session"],
      "unknown-field",
    ],
    [
      "a custom tool has a name",
      { tools: [{ description: "d", input_schema: {} }] },
      ["tools", 0, "name"],
      "required",
    ],
    [
      "a custom tool has an input_schema",
      { tools: [{ name: "f" }] },
      ["tools", 0, "input_schema"],
      "required",
    ],
    [
      "a built-in tool type is one of the three",
      { tools: [{ type: "computer_20250124" }] },
      ["tools", 0, "type"],
      "enum",
    ],
    [
      "tool_choice type is auto, any or tool",
      { tool_choice: { type: "none" } },
      ["tool_choice", "type"],
      "enum",
    ],
    [
      "tool_choice of type tool names the tool",
      { tool_choice: { type: "tool" } },
      ["tool_choice", "name"],
      "required",
    ],
    ["tool_choice is an object", { tool_choice: "auto" }, ["tool_choice"], "type"],
    ["an undefined field is an error", { stop: ["END"] }, ["stop"], "unknown-field"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(textMessages, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("requires a dated <brand>-version header", () => {
    const [header] = textMessages.headers ?? [];
    expect(header?.label).toBe("<brand>-version");
    expect(header?.name.test("acme-version")).toBe(true);
    expect(header?.name.test("x-api-key")).toBe(false);
    expect(header?.value.test("2023-06-01")).toBe(true);
    expect(header?.value.test("v1")).toBe(false);
  });

  it("checks URL image sources only; base64 blocks carry their own data", () => {
    expect(textMessages.imageInputs).toEqual([
      { path: ["messages", "*", "content", "*", "source", "url"], dataUri: false },
    ]);
  });

  it("expects one text answer and states no price", () => {
    expect(textMessages.expectedOutputs(minimal)).toEqual({
      kind: "text",
      count: 1,
      exact: true,
      sizes: null,
    });
    expect(textMessages.estimateCost(minimal)).toBeNull();
  });

  it.each([
    ["temperature is at least 0", { temperature: -0.1 }, ["temperature"], "range"],
    ["top_p is at least 0", { top_p: -0.1 }, ["top_p"], "range"],
  ] as const)("holds the bounds: %s", (_name, change, path, rule) => {
    const base = {
      model: "acme-sonnet",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
    };
    expect(validateRequest(textMessages, { ...base, ...change })).toContainEqual(
      expect.objectContaining({ path: [...path], rule }),
    );
  });
});
