import { describe, expect, it } from "vitest";
import { readSse, type SseEvent } from "../../../src/gateway/sse.js";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { readTextStream } from "../../../src/gateway/text-stream.js";
import {
  quirksOf,
  replyText,
  streamText,
  streamWrites,
  type TextContext,
  type TextFormat,
  type TextStream,
  wantsStream,
} from "../../../src/sim/text/index.js";
import {
  BODY,
  chat,
  ctx,
  data,
  type Json,
  messages,
  native,
  responses,
} from "../../helpers/text-bodies.js";
import { nativeTools, skuFunction, skuTool, weatherTool } from "../../helpers/text-tools.js";

/** The simulator's streams, event by event, as the vendors send them. */

async function* written(stream: TextStream): AsyncGenerator<string | Uint8Array> {
  yield* streamWrites(stream);
}

/** A stream's events as a client reads them from its writes. */
async function eventsOf(stream: TextStream): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(written(stream))) events.push(event);
  return events;
}

/** A stream read back by gwrun's reader, and the same call whole. */
async function roundTrip(format: TextFormat, body: Json, context: TextContext = ctx) {
  const stream = streamText(format, { ...body, stream: true }, context, { sse: true });
  const streamed = await readTextStream(format, readSse(written(stream)));
  const whole = readTextReply(format, replyText(format, body, context));
  return { stream, streamed, whole };
}

/** A response id whose stream has (or lacks) a quirk. */
function idWith(quirk: keyof ReturnType<typeof quirksOf>, on = true): string {
  for (let n = 0; ; n += 1) if (quirksOf(`q_${n}`)[quirk] === on) return `q_${n}`;
}

const tools = [weatherTool, skuFunction];
const twoCalls = "Call get_weather for Lyon, then lookup_sku for MUG-014";

describe("text streams", () => {
  it("streams chat unless stream is false; the others only when it is true", () => {
    expect(wantsStream("chat", chat("x"))).toBe(true);
    expect(wantsStream("chat", chat("x", { stream: false }))).toBe(false);
    for (const format of ["responses", "messages", "native"] as const) {
      expect(wantsStream(format, BODY[format]("x"))).toBe(false);
      expect(wantsStream(format, { ...BODY[format]("x"), stream: true })).toBe(true);
    }
  });

  it("streams chat as role, pieces of 1 to 3 words, a finish chunk, a usage chunk without choices, [DONE]", async () => {
    const body = chat("Describe a red bicycle leaning on a wall in Amsterdam");
    const context = { ...ctx, id: idWith("emptyDeltas", false) };
    const stream = streamText("chat", body, context);
    expect(stream.contentType).toBe("text/event-stream; charset=utf-8");
    const events = await eventsOf(stream);
    expect(events.at(-1)?.data).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as Json);
    expect(chunks[0]?.choices[0].delta).toEqual({ role: "assistant", content: "" });
    const pieces = chunks.slice(1, -2).map((chunk) => chunk.choices[0].delta.content as string);
    for (const piece of pieces) expect(piece.trim().split(" ").length).toBeLessThanOrEqual(3);
    const whole = data("chat", body, context);
    expect(pieces.join("")).toBe(whole.choices[0].message.content);
    expect(chunks.at(-2)?.choices[0]).toMatchObject({ index: 0, delta: {}, finish_reason: "stop" });
    expect(chunks.at(-1)).toMatchObject({ object: "chat.completion.chunk", choices: [] });
    expect(chunks.at(-1)?.usage).toEqual(whole.usage);
  });

  it("streams chat tool calls as fragments keyed by index across several chunks", async () => {
    const body = chat(twoCalls, { tools });
    const events = await eventsOf(streamText("chat", body, ctx));
    const fragments = events
      .slice(0, -1)
      .flatMap((event) => (JSON.parse(event.data) as Json).choices[0]?.delta.tool_calls ?? []);
    for (const index of [0, 1]) {
      const [head, ...rest] = fragments.filter((fragment: Json) => fragment.index === index);
      expect(head).toMatchObject({ id: expect.stringMatching(/^call_/), type: "function" });
      expect(head.function).toEqual({ name: ["get_weather", "lookup_sku"][index], arguments: "" });
      expect(rest.length).toBeGreaterThan(1);
      for (const fragment of rest)
        expect(Object.keys(fragment).sort()).toEqual(["function", "index"]);
    }
    const { streamed, whole } = await roundTrip("chat", body);
    expect(streamed.finishReason).toBe("tool_calls");
    expect(streamed.usage).toEqual(whole.usage);
    expect(streamed.toolCalls).toEqual(whole.toolCalls);
    expect(streamed.toolCalls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
      { name: "get_weather", args: { city: "MUG-014", days: 1 } },
      { name: "lookup_sku", args: { sku: "MUG-014" } },
    ]);
  });

  it("streams responses as the vendor's event sequence ending in response.completed with output[]", async () => {
    const body = responses("Décris une tasse émaillée à Zürich");
    const events = await eventsOf(streamText("responses", body, ctx));
    const payloads = events.map((event) => JSON.parse(event.data) as Json);
    for (const [i, event] of events.entries()) expect(payloads[i]?.type).toBe(event.event);
    expect(payloads.map((payload) => payload.sequence_number)).toEqual(events.map((_, i) => i));
    const types = [...new Set(payloads.map((payload) => payload.type))];
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const final = payloads.at(-1)?.response;
    expect(final).toEqual(data("responses", body));
    expect(final.output[0]).toMatchObject({ type: "message", content: [{ type: "output_text" }] });
    const { streamed, whole } = await roundTrip("responses", body);
    expect(streamed).toMatchObject({ text: whole.text, finishReason: "stop", toolCalls: [] });
    expect(streamed.text).toContain("émaillée à Zürich");
    expect(streamed.usage).toMatchObject({ input_tokens: 6, output_tokens: expect.any(Number) });
  });

  it("streams responses function calls beside reasoning and web search items, and incomplete answers", async () => {
    const body = responses(twoCalls, { tools: [...tools, { type: "web_search" }] });
    const thinking = { ...ctx, model: "acme-5-thinking" };
    const final = data("responses", body, thinking);
    expect(final.output.map((item: Json) => item.type)).toEqual([
      "reasoning",
      "web_search_call",
      "function_call",
      "function_call",
    ]);
    const events = await eventsOf(streamText("responses", body, thinking));
    const argumentDeltas = events.filter(
      (e) => e.event === "response.function_call_arguments.delta",
    );
    expect(argumentDeltas.length).toBeGreaterThan(2);
    const { streamed } = await roundTrip("responses", body, thinking);
    expect(streamed.finishReason).toBe("tool_calls");
    expect(streamed.toolCalls.map((call) => call.name)).toEqual(["get_weather", "lookup_sku"]);
    expect(streamed.toolCalls[1]?.arguments).toEqual({ sku: "MUG-014" });
    expect(streamed.usage).toMatchObject({
      output_tokens_details: { reasoning_tokens: expect.any(Number) },
    });
    const cut = await roundTrip(
      "responses",
      responses("A photo of a lighthouse", { max_tokens: 3 }),
    );
    expect(cut.stream.chunks.at(-1)).toContain('"type":"response.incomplete"');
    expect(cut.streamed).toMatchObject({ finishReason: "length", text: cut.whole.text });
    expect(cut.streamed.usage).toMatchObject({ output_tokens: 3 });
  });

  it("streams native functionCall parts, a last chunk without parts now and then", async () => {
    const body = native(twoCalls, { tools: nativeTools });
    for (const partless of [true, false]) {
      const context = { ...ctx, id: idWith("partlessLastChunk", partless) };
      const events = await eventsOf(streamText("native", body, context, { sse: true }));
      const chunks = events.map((event) => JSON.parse(event.data) as Json);
      const calls = chunks.flatMap((chunk) =>
        (chunk.candidates[0].content?.parts ?? []).filter((part: Json) => part.functionCall),
      );
      expect(calls.map((part: Json) => part.functionCall.name)).toEqual([
        "get_weather",
        "lookup_sku",
      ]);
      const last = chunks.at(-1)?.candidates[0];
      expect(last.finishReason).toBe("STOP");
      expect(last.content.parts === undefined).toBe(partless);
      const { streamed, whole } = await roundTrip("native", body, context);
      expect(streamed).toMatchObject({ text: "", finishReason: "STOP", usage: whole.usage });
      expect(streamed.toolCalls).toEqual(whole.toolCalls);
      expect(streamed.toolCalls[1]).toEqual({
        id: "",
        name: "lookup_sku",
        arguments: { sku: "MUG-014" },
      });
    }
  });

  it("streams messages with pings and input_json_delta, cutting a tool call at max_tokens", async () => {
    const body = messages("Please call lookup_sku for the blue mug", { tools: [skuTool] });
    const context = { ...ctx, id: idWith("extraPings") };
    const events = await eventsOf(streamText("messages", body, context));
    const types = events.map((event) => {
      expect(JSON.parse(event.data).type).toBe(event.event);
      return event.event;
    });
    expect(types[0]).toBe("message_start");
    expect(types.slice(1, 3)).toEqual(["content_block_start", "ping"]);
    expect(types.filter((type) => type === "ping").length).toBeGreaterThan(1);
    const json = events.filter((event) => event.data.includes('"input_json_delta"'));
    expect(json.length).toBeGreaterThan(1);
    expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
    const whole = readTextReply("messages", replyText("messages", body, context));
    const limit = (whole.usage?.output_tokens as number) - 2;
    const { streamed } = await roundTrip("messages", { ...body, max_tokens: limit }, context);
    expect(streamed).toMatchObject({ text: whole.text, finishReason: "max_tokens" });
    expect(streamed.usage).toMatchObject({ output_tokens: limit });
    expect(streamed.toolCalls).toEqual([
      {
        id: whole.toolCalls[0]?.id,
        name: "lookup_sku",
        arguments: {},
        partial: true,
        raw_arguments: expect.stringMatching(/^\{"sku":"/),
      },
    ]);
  });

  it("refuses a prompt with the unsafe word in each format's own way", async () => {
    const refusing = { ...ctx, unsafeWord: "forbidden" };
    const prompt = "A caption for a FORBIDDEN photo";
    const chatted = await roundTrip("chat", chat(prompt), refusing);
    const refusals = chatted.stream.chunks.filter((chunk) => chunk.includes('"refusal":"'));
    expect(refusals.length).toBeGreaterThan(1);
    expect(chatted.streamed).toMatchObject({
      text: "",
      finishReason: "stop",
      refusal: chatted.whole.refusal,
    });
    expect(chatted.streamed.refusal).toMatch(/^I'm sorry/);
    const told = await roundTrip("messages", messages(prompt), refusing);
    expect(told.streamed).toMatchObject({ finishReason: "refusal", refusal: told.whole.refusal });
    expect(told.streamed.text).toBe(told.whole.text);
    const answered = await roundTrip("responses", responses(prompt), refusing);
    expect(answered.streamed).toMatchObject({
      text: "",
      finishReason: "stop",
      refusal: expect.any(String),
    });
    const blocked = await roundTrip("native", native(prompt), refusing);
    expect(blocked.streamed).toMatchObject({ text: "", finishReason: "SAFETY", toolCalls: [] });
  });

  it("ends lines in CR LF, sends empty deltas and splits a character between writes, now and then", async () => {
    const body = chat("Décris une tasse émaillée à Zürich");
    const crlf = streamText("chat", body, { ...ctx, id: idWith("crlf") });
    expect(crlf.chunks.every((chunk) => chunk.endsWith("\r\n\r\n"))).toBe(true);
    const lf = streamText("chat", body, { ...ctx, id: idWith("crlf", false) });
    expect(lf.chunks.some((chunk) => chunk.includes("\r"))).toBe(false);
    const empty = await eventsOf(streamText("chat", body, { ...ctx, id: idWith("emptyDeltas") }));
    expect(empty.some((event) => event.data.includes('"delta":{"content":""}'))).toBe(true);
    const split = streamText("chat", body, { ...ctx, id: idWith("splitCharacters") });
    const writes = streamWrites(split);
    expect(writes.length).toBe(split.chunks.length + 1);
    const fatal = new TextDecoder("utf-8", { fatal: true });
    const broken = writes.filter((write) => {
      try {
        fatal.decode(typeof write === "string" ? new TextEncoder().encode(write) : write);
        return false;
      } catch {
        return true;
      }
    });
    expect(broken).toHaveLength(2);
    for (const format of ["chat", "responses", "messages", "native"] as const) {
      for (let n = 0; n < 8; n += 1) {
        const { streamed, whole } = await roundTrip(
          format,
          BODY[format]("Décris une tasse émaillée à Zürich"),
          { ...ctx, id: `q_${n}` },
        );
        expect(streamed.text, `${format} q_${n}`).toBe(whole.text);
        expect(streamed.usage, `${format} q_${n}`).toEqual(whole.usage);
      }
    }
  });

  it("streams native as one JSON array in parts without alt=sse", () => {
    const body = native("Décris une tasse émaillée à Zürich");
    const stream = streamText("native", body, ctx, { sse: false });
    expect(stream.contentType).toMatch(/^application\/json/);
    expect(stream.chunks.length).toBeGreaterThan(2);
    const array = JSON.parse(stream.chunks.join("")) as Json[];
    const text = array.map((chunk) => chunk.candidates[0].content?.parts?.[0]?.text ?? "").join("");
    expect(text).toBe(data("native", body).candidates[0].content.parts[0].text);
    expect(array.at(-1)?.usageMetadata).toEqual(replyText("native", body, ctx).usageMetadata);
    expect(array.at(-1)?.candidates[0].finishReason).toBe("STOP");
  });

  it("streams native as SSE data chunks with alt=sse", () => {
    const stream = streamText("native", native("A slogan"), ctx, { sse: true });
    expect(stream.contentType).toBe("text/event-stream; charset=utf-8");
    for (const chunk of stream.chunks) expect(chunk).toMatch(/^data: \{.*\}\r?\n\r?\n$/s);
  });
});
