import { describe, expect, it } from "vitest";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { type FixtureEvent, readFixture, sseText } from "../../helpers/sse-fixture.js";

/**
 * Chat tool-call fragments and native chunks, written from the vendors' documented stream
 * shapes: chat `delta.tool_calls` keyed by `index`, native `functionCall` parts and a last
 * chunk whose content has a role but no parts.
 */

const chunkHead = {
  id: "chatcmpl-9",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-4o",
};
const chunk = (choices: object[], extra: object = {}): FixtureEvent => [
  undefined,
  { ...chunkHead, choices, ...extra },
];
const delta = (index: number, fields: object, finish: string | null = null) => ({
  index,
  delta: fields,
  logprobs: null,
  finish_reason: finish,
});
const fragment = (index: number, fields: object) => ({ tool_calls: [{ index, ...fields }] });
const chatUsage = { prompt_tokens: 82, completion_tokens: 41, total_tokens: 123 };

describe("streamed chat tool calls", () => {
  it("assembles fragments keyed by index into several calls, parsing arguments at the end", async () => {
    const body = sseText([
      chunk([delta(0, { role: "assistant", content: null, refusal: null })]),
      chunk([
        delta(
          0,
          fragment(0, {
            id: "call_a",
            type: "function",
            function: { name: "get_weather", arguments: "" },
          }),
        ),
      ]),
      chunk([delta(0, fragment(0, { function: { arguments: '{"ci' } }))]),
      chunk([delta(0, fragment(0, { function: { arguments: 'ty":"Zürich",' } }))]),
      chunk([delta(0, fragment(0, { function: { arguments: '"days":2}' } }))]),
      chunk([
        delta(
          0,
          fragment(1, {
            id: "call_b",
            type: "function",
            function: { name: "lookup_sku", arguments: "" },
          }),
        ),
      ]),
      chunk([delta(0, fragment(1, { function: { arguments: '{"sku":"MUG-014"}' } }))]),
      chunk([delta(0, {}, "tool_calls")]),
      chunk([], { usage: chatUsage }),
      [undefined, "[DONE]"],
    ]);
    const { answer, deltas } = await readFixture("chat", body, 4);
    expect(answer).toMatchObject({ text: "", finishReason: "tool_calls", usage: chatUsage });
    expect(answer.toolCalls).toEqual([
      { id: "call_a", name: "get_weather", arguments: { city: "Zürich", days: 2 } },
      { id: "call_b", name: "lookup_sku", arguments: { sku: "MUG-014" } },
    ]);
    expect(deltas).toEqual([]);
    expect(answer.raw).toMatchObject({
      choices: [{ message: { content: null, tool_calls: [{ id: "call_a" }, { id: "call_b" }] } }],
    });
  });

  it("keeps text, empty deltas and a second choice apart from the first choice's calls", async () => {
    const body = sseText(
      [
        chunk([
          delta(0, { role: "assistant", content: "" }),
          delta(1, { role: "assistant", content: "" }),
        ]),
        chunk([delta(0, { content: "Checking " }), delta(1, { content: "A mug." })]),
        chunk([delta(0, { content: "" })]),
        chunk([
          delta(
            0,
            fragment(0, {
              id: "call_c",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":' },
            }),
          ),
        ]),
        chunk([delta(0, fragment(0, { function: { arguments: '"Lyon"}' } }))]),
        chunk([delta(1, {}, "stop")]),
        chunk([delta(0, {}, "tool_calls")], { usage: chatUsage }),
        [undefined, "[DONE]"],
      ],
      { crlf: true },
    );
    const { answer, deltas } = await readFixture("chat", body, 3);
    expect(answer).toMatchObject({
      text: "Checking ",
      choices: ["Checking ", "A mug."],
      finishReason: "tool_calls",
      usage: chatUsage,
      toolCalls: [{ id: "call_c", name: "get_weather", arguments: { city: "Lyon" } }],
    });
    expect(deltas.join("")).toBe("Checking ");
  });
});

const nativeUsage = (candidates: number, thoughts = 0) => ({
  promptTokenCount: 31,
  candidatesTokenCount: candidates,
  totalTokenCount: 31 + candidates + thoughts,
  thoughtsTokenCount: thoughts,
});
const nativeChunk = (content: object | undefined, extra: object = {}): FixtureEvent => [
  undefined,
  {
    candidates: [{ ...(content === undefined ? {} : { content }), index: 0, ...extra }],
    usageMetadata: nativeUsage(5, 40),
    modelVersion: "gemini-2.5-pro",
    responseId: "abc",
  },
];

describe("native chunks", () => {
  it("reads functionCall parts and a last chunk with a role but no parts", async () => {
    const body = sseText([
      nativeChunk({ role: "model", parts: [{ text: "Weighing the tools…", thought: true }] }),
      nativeChunk({
        role: "model",
        parts: [{ functionCall: { name: "get_weather", args: { city: "Zürich", days: 2 } } }],
      }),
      nativeChunk({ role: "model" }, { finishReason: "STOP" }),
    ]);
    const { answer, deltas } = await readFixture("native", body, 6);
    expect(answer).toMatchObject({
      text: "",
      finishReason: "STOP",
      usage: nativeUsage(5, 40),
      toolCalls: [{ id: "", name: "get_weather", arguments: { city: "Zürich", days: 2 } }],
    });
    expect(deltas).toEqual([]);
    expect(answer.raw).toMatchObject({ modelVersion: "gemini-2.5-pro" });
  });

  it("reads text and several calls across chunks, thought parts left out", async () => {
    const body = sseText([
      nativeChunk({ role: "model", parts: [{ text: "Two lookups" }] }),
      nativeChunk({
        role: "model",
        parts: [
          { text: ", one moment." },
          { functionCall: { id: "fc1", name: "lookup_sku", args: { sku: "MUG-014" } } },
          { functionCall: { id: "fc2", name: "lookup_sku", args: { sku: "MUG-015" } } },
        ],
      }),
      nativeChunk({ role: "model", parts: [] }, { finishReason: "STOP" }),
    ]);
    const { answer, deltas } = await readFixture("native", body, 9);
    expect(answer).toMatchObject({ text: "Two lookups, one moment.", finishReason: "STOP" });
    expect(answer.toolCalls).toEqual([
      { id: "fc1", name: "lookup_sku", arguments: { sku: "MUG-014" } },
      { id: "fc2", name: "lookup_sku", arguments: { sku: "MUG-015" } },
    ]);
    expect(deltas.join("")).toBe("Two lookups, one moment.");
  });

  it("reads a whole reply of only a function call, and a candidate without parts", () => {
    const call = { functionCall: { name: "get_weather", args: { city: "Oslo" } } };
    const whole = readTextReply("native", {
      candidates: [{ content: { role: "model", parts: [call] }, finishReason: "STOP", index: 0 }],
      usageMetadata: nativeUsage(3),
    });
    expect(whole).toMatchObject({
      text: "",
      finishReason: "STOP",
      usage: nativeUsage(3),
      toolCalls: [{ id: "", name: "get_weather", arguments: { city: "Oslo" } }],
    });
    const empty = readTextReply("native", {
      candidates: [{ content: { role: "model" }, finishReason: "MAX_TOKENS", index: 0 }],
      usageMetadata: nativeUsage(0),
    });
    expect(empty).toMatchObject({ text: "", finishReason: "MAX_TOKENS", toolCalls: [] });
  });
});
