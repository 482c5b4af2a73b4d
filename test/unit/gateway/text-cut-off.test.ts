import { describe, expect, it } from "vitest";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { type FixtureEvent, readFixture, sseText } from "../../helpers/sse-fixture.js";

/**
 * Answers the model ended early keep what they have: a tool call cut off by the token limit is
 * kept with its raw argument text, and a refusal is kept as such, with its own finish reason.
 */

const event = (type: string, fields: object = {}): FixtureEvent => [type, { type, ...fields }];
const start = (usage: object) =>
  event("message_start", {
    message: {
      id: "msg_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
const textBlock = (index: number, pieces: string[]): FixtureEvent[] => [
  event("content_block_start", { index, content_block: { type: "text", text: "" } }),
  ...pieces.map((text) =>
    event("content_block_delta", { index, delta: { type: "text_delta", text } }),
  ),
  event("content_block_stop", { index }),
];

describe("answers cut off by the token limit", () => {
  it("keeps a messages answer's text, usage and max_tokens, and the cut-off tool call", async () => {
    const body = sseText([
      start({ input_tokens: 472, output_tokens: 2 }),
      event("ping"),
      ...textBlock(0, ["Okay, let me check ", "Zürich"]),
      event("content_block_start", {
        index: 1,
        content_block: { type: "tool_use", id: "toolu_01", name: "get_weather", input: {} },
      }),
      event("content_block_delta", {
        index: 1,
        delta: { type: "input_json_delta", partial_json: "" },
      }),
      event("ping"),
      event("content_block_delta", {
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"city": "Zür' },
      }),
      event("content_block_stop", { index: 1 }),
      event("message_delta", {
        delta: { stop_reason: "max_tokens", stop_sequence: null },
        usage: { output_tokens: 20 },
      }),
      event("message_stop"),
    ]);
    const { answer, deltas } = await readFixture("messages", body, 5);
    expect(answer).toMatchObject({
      text: "Okay, let me check Zürich",
      finishReason: "max_tokens",
      usage: { input_tokens: 472, output_tokens: 20 },
      refusal: null,
    });
    expect(answer.toolCalls).toEqual([
      {
        id: "toolu_01",
        name: "get_weather",
        arguments: {},
        partial: true,
        raw_arguments: '{"city": "Zür',
      },
    ]);
    expect(deltas.join("")).toBe("Okay, let me check Zürich");
  });

  it("keeps a chat call cut off by finish_reason length, and a responses call left incomplete", async () => {
    const chunk = (delta: object, finish: string | null = null): FixtureEvent => [
      undefined,
      {
        id: "c",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, finish_reason: finish }],
      },
    ];
    const chat = sseText([
      chunk({
        role: "assistant",
        tool_calls: [
          { index: 0, id: "call_x", type: "function", function: { name: "f", arguments: "" } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a": [1, ' } }] }),
      chunk({}, "length"),
      [
        undefined,
        {
          id: "c",
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
        },
      ],
      [undefined, "[DONE]"],
    ]);
    const { answer } = await readFixture("chat", chat);
    expect(answer).toMatchObject({ text: "", finishReason: "length", usage: { total_tokens: 14 } });
    expect(answer.toolCalls).toEqual([
      { id: "call_x", name: "f", arguments: {}, partial: true, raw_arguments: '{"a": [1, ' },
    ]);
    const responses = readTextReply("responses", {
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        {
          type: "function_call",
          id: "fc_1",
          call_id: "call_1",
          name: "f",
          arguments: '{"a":',
          status: "incomplete",
        },
      ],
      usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    });
    expect(responses).toMatchObject({ finishReason: "length", usage: { output_tokens: 4 } });
    expect(responses.toolCalls).toEqual([
      { id: "call_1", name: "f", arguments: {}, partial: true, raw_arguments: '{"a":' },
    ]);
  });

  it("still reports arguments that do not parse in an answer that was not cut off", () => {
    const reply = {
      choices: [
        {
          message: {
            content: null,
            tool_calls: [{ id: "c", function: { name: "f", arguments: "{" } }],
          },
          finish_reason: "tool_calls",
        },
      ],
    };
    expect(() => readTextReply("chat", reply)).toThrow(
      "chat reply: the arguments of tool call f are not JSON",
    );
  });
});

describe("refusals", () => {
  it("keeps a chat refusal streamed in delta.refusal, with the vendor's finish reason", async () => {
    const chunk = (delta: object, finish: string | null = null, extra = {}): FixtureEvent => [
      undefined,
      {
        id: "c",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta, finish_reason: finish }],
        ...extra,
      },
    ];
    const body = sseText([
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: "I'm sorry, " }),
      chunk({ refusal: "I can't help with that." }),
      chunk({}, "stop"),
      [
        undefined,
        {
          id: "c",
          choices: [],
          usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
        },
      ],
      [undefined, "[DONE]"],
    ]);
    const { answer, deltas } = await readFixture("chat", body);
    expect(answer).toMatchObject({
      text: "",
      refusal: "I'm sorry, I can't help with that.",
      finishReason: "stop",
      usage: { total_tokens: 21 },
      toolCalls: [],
    });
    expect(deltas).toEqual([]);
    const whole = readTextReply("chat", {
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, refusal: "No." },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    expect(whole).toMatchObject({ text: "", refusal: "No.", finishReason: "stop" });
  });

  it("keeps a messages refusal with the text before it and stop_details' explanation", async () => {
    const body = sseText([
      start({ input_tokens: 30, output_tokens: 1 }),
      ...textBlock(0, ["Hello", ".."]),
      event("message_delta", {
        delta: {
          stop_reason: "refusal",
          stop_sequence: null,
          stop_details: {
            type: "refusal",
            category: "cyber",
            explanation: "Declined: cyber harm.",
          },
        },
        usage: { output_tokens: 3 },
      }),
      event("message_stop"),
    ]);
    const { answer } = await readFixture("messages", body);
    expect(answer).toMatchObject({
      text: "Hello..",
      refusal: "Declined: cyber harm.",
      finishReason: "refusal",
      usage: { input_tokens: 30, output_tokens: 3 },
      toolCalls: [],
    });
    const bare = readTextReply("messages", {
      content: [],
      stop_reason: "refusal",
      usage: { input_tokens: 30, output_tokens: 0 },
    });
    expect(bare).toMatchObject({ text: "", refusal: "", finishReason: "refusal" });
  });

  it("keeps a responses refusal part", () => {
    const answer = readTextReply("responses", {
      status: "completed",
      output: [
        {
          type: "message",
          role: "assistant",
          content: [{ type: "refusal", refusal: "I can't help with that." }],
        },
      ],
      usage: { input_tokens: 5, output_tokens: 6, total_tokens: 11 },
    });
    expect(answer).toMatchObject({
      text: "",
      refusal: "I can't help with that.",
      finishReason: "stop",
      usage: { total_tokens: 11 },
    });
  });
});
