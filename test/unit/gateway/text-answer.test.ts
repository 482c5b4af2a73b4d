import { describe, expect, it } from "vitest";
import { readSse, type SseEvent } from "../../../src/gateway/sse.js";
import type { TextFormat } from "../../../src/gateway/text-answer.js";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { readTextStream } from "../../../src/gateway/text-stream.js";
import { replyText, streamText, type TextContext } from "../../../src/sim/text/index.js";
import { bytesOf } from "../../helpers/sse-fixture.js";
import { nativeTools, skuFunction, skuTool, weatherTool } from "../../helpers/text-tools.js";

const ctx: TextContext = { id: "rt_1", created: 1_700_000_000, model: "acme-5" };

async function* eventsOf(list: readonly SseEvent[]): AsyncGenerator<SseEvent> {
  yield* list;
}

const CASES: { name: string; format: TextFormat; body: Record<string, unknown>; model?: string }[] =
  [
    {
      name: "chat",
      format: "chat",
      body: {
        model: "acme-5",
        messages: [{ role: "user", content: "Décris une tasse émaillée à Zürich" }],
      },
    },
    {
      name: "chat with n = 2, max_tokens and stop",
      format: "chat",
      body: {
        model: "acme-5",
        n: 2,
        max_tokens: 9,
        stop: ["zzz"],
        messages: [{ role: "user", content: "Caption: ceramic mug" }],
      },
    },
    {
      name: "responses",
      format: "responses",
      body: {
        model: "acme-5",
        input: [
          { role: "user", content: [{ type: "input_text", text: "Ein Foto: Größe, Übermaß" }] },
        ],
      },
    },
    {
      name: "responses tool call",
      format: "responses",
      body: { model: "acme-5", input: "Use get_weather for Paris", tools: [weatherTool] },
    },
    {
      name: "chat tool calls",
      format: "chat",
      body: {
        model: "acme-5",
        tools: [weatherTool, skuFunction],
        messages: [
          { role: "user", content: "Call get_weather for Lyon, then lookup_sku for MUG-014" },
        ],
      },
    },
    {
      name: "messages",
      format: "messages",
      body: {
        model: "acme-fast",
        max_tokens: 200,
        system: "Sé breve.",
        messages: [{ role: "user", content: "Una taza de cerámica en Málaga" }],
      },
    },
    {
      name: "messages with prefill and a stop sequence",
      format: "messages",
      body: {
        model: "acme-fast",
        stop_sequences: ["."],
        messages: [
          { role: "user", content: "Caption a photo of a red bicycle" },
          { role: "assistant", content: "Caption:" },
        ],
      },
    },
    {
      name: "messages tool call",
      format: "messages",
      body: {
        model: "acme-fast",
        max_tokens: 100,
        tools: [skuTool],
        messages: [{ role: "user", content: "Please call lookup_sku for the blue mug" }],
      },
    },
    {
      name: "native",
      format: "native",
      body: {
        model: "acme-2.5-flash",
        contents: [
          { role: "user", parts: [{ text: "Un café crème à Montréal, s'il vous plaît" }] },
        ],
      },
    },
    {
      name: "native function calls",
      format: "native",
      body: {
        model: "acme-2.5-flash",
        tools: nativeTools,
        contents: [{ parts: [{ text: "Use get_weather for Zürich and lookup_sku for MUG-014" }] }],
      },
    },
    {
      name: "native thinking with a token limit",
      format: "native",
      model: "acme-2.5-pro-thinking",
      body: {
        model: "acme-2.5-pro-thinking",
        generationConfig: { maxOutputTokens: 7 },
        contents: [{ parts: [{ text: "Żółta łódź" }] }],
      },
    },
  ];

describe.each(CASES)("round trip: $name", ({ format, body, model }) => {
  const context = { ...ctx, model: model ?? ctx.model };

  it("reassembles the stream, split every 7 bytes, into the non-streamed answer", async () => {
    const whole = readTextReply(format, replyText(format, body, context));
    const stream = streamText(format, { ...body, stream: true }, context, { sse: true });
    const deltas: string[] = [];
    const streamed = await readTextStream(format, readSse(bytesOf(stream.chunks, 7)), (delta) =>
      deltas.push(delta),
    );
    expect(streamed.text).toBe(whole.text);
    expect(deltas.join("")).toBe(whole.text);
    expect(streamed.finishReason).toBe(whole.finishReason);
    expect(streamed.usage).toEqual(whole.usage);
    expect(streamed.toolCalls).toEqual(whole.toolCalls);
    expect(whole.usage).not.toBeNull();
    if (whole.toolCalls.length === 0) expect(deltas.length).toBeGreaterThan(1);
  });

  it("reads the stream written chunk by chunk as strings too", async () => {
    const whole = readTextReply(format, replyText(format, body, context));
    const stream = streamText(format, body, context, { sse: true });
    const streamed = await readTextStream(format, readSse(eventsOfStrings(stream.chunks)));
    expect(streamed.text).toBe(whole.text);
  });
});

async function* eventsOfStrings(chunks: readonly string[]): AsyncGenerator<string> {
  yield* chunks;
}

describe("round trip details", () => {
  it("splits multi-byte characters across chunks of 2 to 7 bytes in the non-ASCII cases", async () => {
    const stream = streamText("chat", CASES[0]?.body ?? {}, ctx);
    const fatal = new TextDecoder("utf-8", { fatal: true });
    let split = 0;
    for (let size = 2; size <= 7; size += 1) {
      for await (const piece of bytesOf(stream.chunks, size)) {
        try {
          fatal.decode(piece);
        } catch {
          split += 1;
        }
      }
      const answer = await readTextStream("chat", readSse(bytesOf(stream.chunks, size)));
      expect(answer.text).toContain("émaillée à Zürich");
    }
    expect(split).toBeGreaterThan(0);
  });

  it("reads tool calls: responses from response.completed, messages from JSON fragments", async () => {
    const responses = CASES.find((entry) => entry.name === "responses tool call");
    const stream = streamText("responses", responses?.body ?? {}, ctx);
    const call = await readTextStream("responses", readSse(bytesOf(stream.chunks, 5)));
    expect(call.finishReason).toBe("tool_calls");
    expect(call.toolCalls).toEqual([
      {
        id: expect.stringMatching(/^call_/),
        name: "get_weather",
        arguments: { city: "Paris", days: 1 },
      },
    ]);
    const messages = CASES.find((entry) => entry.name === "messages tool call");
    const events = streamText("messages", messages?.body ?? {}, ctx);
    const use = await readTextStream("messages", readSse(bytesOf(events.chunks, 3)));
    expect(use.finishReason).toBe("tool_use");
    expect(use.toolCalls).toEqual([
      { id: expect.stringMatching(/^toolu_/), name: "lookup_sku", arguments: { sku: "mug" } },
    ]);
    expect(use.raw).toEqual(replyText("messages", messages?.body ?? {}, ctx).data);
  });

  it("reads native usage beside data or inside a bare vendor object", () => {
    const body = CASES.find((entry) => entry.name === "native")?.body ?? {};
    const enveloped = replyText("native", body, ctx);
    const answer = readTextReply("native", enveloped);
    expect(answer.usage).toEqual(enveloped.usageMetadata);
    const bare = { ...(enveloped.data as object), usageMetadata: enveloped.usageMetadata };
    expect(readTextReply("native", bare)).toEqual({ ...answer, raw: bare });
  });

  it("reads a chat stream whose usage arrives in a chunk without choices", async () => {
    const chunk = (choices: unknown[], extra = {}) => ({
      event: undefined,
      data: JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices, ...extra }),
    });
    const answer = await readTextStream(
      "chat",
      eventsOf([
        chunk([{ index: 0, delta: { role: "assistant" } }]),
        chunk([{ index: 0, delta: { content: "Hello" } }]),
        chunk([{ index: 0, delta: {}, finish_reason: "stop" }]),
        chunk([], { usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
        { event: undefined, data: "[DONE]" },
      ]),
    );
    expect(answer).toMatchObject({
      text: "Hello",
      finishReason: "stop",
      usage: { total_tokens: 2 },
    });
  });
});

describe("readSse", () => {
  it("reads CRLF lines, comments, multi-line data and a last event without its blank line", async () => {
    const body = ": keep-alive\r\nevent: one\r\ndata: a\r\ndata: b\r\n\r\ndata: [DONE]";
    const events: SseEvent[] = [];
    for await (const event of readSse(eventsOfStrings([body]))) events.push(event);
    expect(events).toEqual([
      { event: "one", data: "a\nb" },
      { event: undefined, data: "[DONE]" },
    ]);
  });
});
