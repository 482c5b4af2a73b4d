import { describe, expect, it } from "vitest";
import { textChat } from "../../../src/families/text-chat.js";
import { validateRequest } from "../../../src/families/validate.js";

const minimal = { model: "acme-5", messages: [{ role: "user", content: "Say hello." }] };

describe("chat completions", () => {
  it("accepts a minimal request", () => {
    expect(validateRequest(textChat, minimal)).toEqual([]);
  });

  it("accepts any model id, since the set of text models grows", () => {
    expect(validateRequest(textChat, { ...minimal, model: "other-vendor-9-thinking" })).toEqual([]);
  });

  it("accepts a rich request", () => {
    const rich = {
      ...minimal,
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: "Name three colours." },
        { role: "assistant", content: "Red, green," },
      ],
      temperature: 0.2,
      max_tokens: 256,
      stream: false,
      frequency_penalty: -2,
      presence_penalty: 2,
      stop: ["\n\n", "END", "###", "--"],
      n: 2,
    };
    expect(validateRequest(textChat, rich)).toEqual([]);
    expect(validateRequest(textChat, { ...minimal, top_p: 0.9, stop: "END" })).toEqual([]);
  });

  it.each([
    ["model is required", { model: undefined }, ["model"], "required"],
    ["model is a non-empty string", { model: "" }, ["model"], "length"],
    ["messages is required", { messages: undefined }, ["messages"], "required"],
    ["messages holds at least one message", { messages: [] }, ["messages"], "count"],
    [
      "a role is system, user or assistant",
      { messages: [{ role: "tool", content: "x" }] },
      ["messages", 0, "role"],
      "enum",
    ],
    [
      "content is a string",
      { messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] },
      ["messages", 0, "content"],
      "type",
    ],
    [
      "a message has only role and content",
      { messages: [{ role: "user", content: "x", name: "a" }] },
      ["messages", 0, "name"],
      "unknown-field",
    ],
    ["temperature is at most 2", { temperature: 2.5 }, ["temperature"], "range"],
    ["temperature is a JSON number", { temperature: "0.5" }, ["temperature"], "json-number"],
    ["top_p is at most 1", { top_p: 1.5 }, ["top_p"], "range"],
    [
      "top_p and temperature are not both set",
      { temperature: 0.5, top_p: 0.9 },
      ["top_p"],
      "either-or",
    ],
    ["max_tokens is at least 1", { max_tokens: 0 }, ["max_tokens"], "range"],
    ["max_tokens is an integer", { max_tokens: 10.5 }, ["max_tokens"], "type"],
    ["stream is a boolean", { stream: "true" }, ["stream"], "type"],
    [
      "frequency_penalty is at least -2",
      { frequency_penalty: -2.5 },
      ["frequency_penalty"],
      "range",
    ],
    ["presence_penalty is at most 2", { presence_penalty: 3 }, ["presence_penalty"], "range"],
    ["stop holds at most 4 sequences", { stop: ["a", "b", "c", "d", "e"] }, ["stop"], "count"],
    ["stop sequences are strings", { stop: ["a", 1] }, ["stop", 1], "type"],
    ["stop is a string or an array", { stop: 5 }, ["stop"], "type"],
    ["n is a JSON number", { n: "2" }, ["n"], "json-number"],
    ["n is at least 1", { n: 0 }, ["n"], "range"],
    ["chat tools are functions", { tools: [{ type: "web_search" }] }, ["tools", 0, "type"], "enum"],
    [
      "a chat function has a name",
      { tools: [{ type: "function", function: { description: "d" } }] },
      ["tools", 0, "function", "name"],
      "required",
    ],
    ["tool_choice is none, auto or required", { tool_choice: "any" }, ["tool_choice"], "enum"],
  ])("rejects: %s", (_name, change, path, rule) => {
    const issues = validateRequest(textChat, { ...minimal, ...change });
    expect(issues).toContainEqual(expect.objectContaining({ path, rule }));
  });

  it("takes the vendor's function tools and tool_choice with a warning, as the contract lists none", () => {
    const tools = [
      {
        type: "function",
        function: { name: "get_weather", parameters: { type: "object", properties: {} } },
      },
    ];
    const issues = validateRequest(textChat, {
      ...minimal,
      tools,
      tool_choice: { type: "function", function: { name: "get_weather" } },
    });
    expect(issues.map(({ path, rule, severity }) => ({ path, rule, severity }))).toEqual([
      { path: ["tools"], rule: "vendor-field", severity: "warning" },
      { path: ["tool_choice"], rule: "vendor-field", severity: "warning" },
    ]);
  });

  it("expects one text answer and states no price", () => {
    expect(textChat.expectedOutputs(minimal)).toEqual({
      kind: "text",
      count: 1,
      exact: true,
      sizes: null,
    });
    expect(textChat.estimateCost(minimal)).toBeNull();
    expect(textChat.models).toEqual([]);
    expect(textChat.lane).toBe("text");
  });

  it("expects one text output per choice when n asks for several", () => {
    expect(textChat.expectedOutputs({ ...minimal, n: 3 })).toMatchObject({
      kind: "text",
      count: 3,
    });
  });

  it.each([
    ["temperature is at least 0", { temperature: -0.1 }, ["temperature"], "range"],
    ["top_p is at least 0", { top_p: -0.1 }, ["top_p"], "range"],
    ["frequency_penalty is at most 2", { frequency_penalty: 2.1 }, ["frequency_penalty"], "range"],
    ["presence_penalty is at least -2", { presence_penalty: -2.1 }, ["presence_penalty"], "range"],
  ] as const)("holds the bounds: %s", (_name, change, path, rule) => {
    const base = { model: "acme-5", messages: [{ role: "user", content: "hi" }] };
    expect(validateRequest(textChat, { ...base, ...change })).toContainEqual(
      expect.objectContaining({ path: [...path], rule }),
    );
  });
});
