import { describe, expect, it } from "vitest";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { type FixtureEvent, readFixture, sseText } from "../../helpers/sse-fixture.js";

/**
 * Responses streams and objects written from the vendor's documented shapes: the streaming
 * events (`response.created` … `response.completed`) and the Response object with `output[]`.
 */

const usage = {
  input_tokens: 36,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: 87,
  output_tokens_details: { reasoning_tokens: 64 },
  total_tokens: 123,
};

const head = { id: "resp_67c9", object: "response", created_at: 1741290958, model: "gpt-4.1" };

const reasoning = { id: "rs_1", type: "reasoning", summary: [] };
const message = (text: string, status = "completed") => ({
  id: "msg_1",
  type: "message",
  status,
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }],
});
const functionCall = (n: number, name: string, args: string, status = "completed") => ({
  id: `fc_${n}`,
  type: "function_call",
  status,
  call_id: `call_${n}`,
  name,
  arguments: args,
});

/** The documented event sequence around `output`, its text written as `deltas`. */
function responseEvents(output: object[], deltas: string[], final: object): FixtureEvent[] {
  let sequence = 0;
  const event = (type: string, fields: object): FixtureEvent => [
    type,
    { type, sequence_number: sequence++, ...fields },
  ];
  const events = [
    event("response.created", { response: { ...head, status: "in_progress", output: [] } }),
    event("response.in_progress", { response: { ...head, status: "in_progress", output: [] } }),
  ];
  output.forEach((item, output_index) => {
    const { type, id } = item as { type: string; id: string };
    const opened = type === "message" ? { ...item, status: "in_progress", content: [] } : item;
    events.push(event("response.output_item.added", { output_index, item: opened }));
    if (type === "message") {
      const where = { item_id: id, output_index, content_index: 0 };
      const part = { type: "output_text", text: "", annotations: [] };
      events.push(event("response.content_part.added", { ...where, part }));
      for (const delta of deltas)
        events.push(event("response.output_text.delta", { ...where, delta }));
      events.push(event("response.output_text.done", { ...where, text: deltas.join("") }));
    }
    if (type === "function_call") {
      const { arguments: args } = item as { arguments: string };
      const where = { item_id: id, output_index };
      for (const delta of [args.slice(0, 5), args.slice(5)])
        events.push(event("response.function_call_arguments.delta", { ...where, delta }));
      events.push(event("response.function_call_arguments.done", { ...where, arguments: args }));
    }
    events.push(event("response.output_item.done", { output_index, item }));
  });
  const { status } = final as { status: string };
  const type = status === "incomplete" ? "response.incomplete" : "response.completed";
  events.push(event(type, { response: { ...head, output, usage, ...final } }));
  return events;
}

describe("responses streams", () => {
  it("reads text from output_text deltas and usage from response.completed, skipping reasoning", async () => {
    const deltas = ["A glazed mug ", "in Zürich", "", "."];
    const output = [reasoning, message(deltas.join(""))];
    const body = sseText(responseEvents(output, deltas, { status: "completed" }), { crlf: true });
    const { answer, deltas: seen } = await readFixture("responses", body, 3);
    expect(answer).toMatchObject({
      text: "A glazed mug in Zürich.",
      choices: ["A glazed mug in Zürich."],
      finishReason: "stop",
      usage,
      toolCalls: [],
      refusal: null,
    });
    expect(seen.join("")).toBe("A glazed mug in Zürich.");
    expect(answer.raw).toMatchObject({ id: "resp_67c9", status: "completed" });
  });

  it("reads several function_call items, skipping web and file search items", async () => {
    const output = [
      { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search" } },
      {
        id: "fs_1",
        type: "file_search_call",
        status: "completed",
        queries: ["mug"],
        results: null,
      },
      functionCall(1, "get_weather", '{"city":"Lyon","days":3}'),
      functionCall(2, "lookup_sku", '{"sku":"MUG-014"}'),
    ];
    const body = sseText(responseEvents(output, [], { status: "completed" }));
    const { answer } = await readFixture("responses", body, 7);
    expect(answer.text).toBe("");
    expect(answer.finishReason).toBe("tool_calls");
    expect(answer.usage).toEqual(usage);
    expect(answer.toolCalls).toEqual([
      { id: "call_1", name: "get_weather", arguments: { city: "Lyon", days: 3 } },
      { id: "call_2", name: "lookup_sku", arguments: { sku: "MUG-014" } },
    ]);
  });

  it("keeps what response.incomplete holds, with its reason as the finish", async () => {
    const deltas = ["A glazed", " mug on"];
    const final = { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
    const output = [message(deltas.join(""), "incomplete")];
    const { answer } = await readFixture(
      "responses",
      sseText(responseEvents(output, deltas, final)),
    );
    expect(answer).toMatchObject({ text: "A glazed mug on", finishReason: "length", usage });
    const filtered = { status: "incomplete", incomplete_details: { reason: "content_filter" } };
    const cut = await readFixture("responses", sseText(responseEvents(output, deltas, filtered)));
    expect(cut.answer.finishReason).toBe("content_filter");
  });

  it("reports response.failed and error events with their reasons", async () => {
    const failed = sseText([
      ["response.created", { type: "response.created", response: { ...head, output: [] } }],
      [
        "response.failed",
        {
          type: "response.failed",
          response: {
            ...head,
            status: "failed",
            output: [],
            error: { code: "server_error", message: "The model had an error" },
          },
        },
      ],
    ]);
    await expect(readFixture("responses", failed)).rejects.toThrow(
      "responses stream: the response failed: server_error: The model had an error",
    );
    const error = sseText([
      ["error", { type: "error", code: "rate_limit_exceeded", message: "Slow down", param: null }],
    ]);
    await expect(readFixture("responses", error)).rejects.toThrow(
      "responses stream: the stream reported rate_limit_exceeded: Slow down",
    );
  });
});

describe("responses objects", () => {
  it("reads a whole Responses object's output items and usage", () => {
    const data = {
      ...head,
      status: "completed",
      output: [reasoning, message("Two mugs."), functionCall(7, "get_weather", '{"city":"Oslo"}')],
      usage,
    };
    expect(readTextReply("responses", { code: 200, data })).toEqual({
      text: "Two mugs.",
      choices: ["Two mugs."],
      finishReason: "tool_calls",
      usage,
      toolCalls: [{ id: "call_7", name: "get_weather", arguments: { city: "Oslo" } }],
      refusal: null,
      raw: data,
    });
  });

  it("still reads the contract's chat-like choices shape", () => {
    const data = {
      id: "resp_1",
      choices: [{ index: 0, message: { role: "assistant", content: "Hi" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    expect(readTextReply("responses", { code: 200, data })).toMatchObject({
      text: "Hi",
      finishReason: "stop",
      usage: { total_tokens: 2 },
      toolCalls: [],
    });
  });

  it("names a Response without output, a failed one and a nameless function call", () => {
    const reply = (data: object) => () => readTextReply("responses", { code: 200, data });
    expect(reply({ id: "r" })).toThrow("responses reply: the response has no output items");
    expect(reply({ status: "failed", output: [], error: { message: "boom" } })).toThrow(
      "responses reply: the response failed: boom",
    );
    expect(reply({ output: [{ type: "function_call", arguments: "{}" }] })).toThrow(
      "responses reply: a function_call item has no name",
    );
  });
});

describe("commentary and final answer", () => {
  const phased = (id: string, phase: string, text: string) => ({
    ...message(text),
    id,
    phase,
  });
  const note = "I'll search the catalogue and answer with links.";
  const answerText = "Here are a few mugs: https://shop.example/mug-14";

  it("a Response object's final_answer message is the text; the commentary is kept apart", () => {
    const data = {
      ...head,
      status: "completed",
      output: [phased("msg_0", "commentary", note), phased("msg_1", "final_answer", answerText)],
      usage,
    };
    expect(readTextReply("responses", { code: 200, data })).toMatchObject({
      text: answerText,
      choices: [answerText],
      commentary: [note],
    });
  });

  it("a two-phase stream gives the final answer as the text, even when the final object leaves it out", async () => {
    let sequence = 0;
    const event = (type: string, fields: object): FixtureEvent => [
      type,
      { type, sequence_number: sequence++, ...fields },
    ];
    const item = (output_index: number, id: string, phase: string, text: string) => {
      const where = { item_id: id, output_index, content_index: 0 };
      const opened = { ...phased(id, phase, ""), status: "in_progress", content: [] };
      return [
        event("response.output_item.added", { output_index, item: opened }),
        ...[text.slice(0, 10), text.slice(10)].map((delta) =>
          event("response.output_text.delta", { ...where, delta }),
        ),
        event("response.output_item.done", { output_index, item: phased(id, phase, text) }),
      ];
    };
    const events = [
      event("response.created", { response: { ...head, status: "in_progress", output: [] } }),
      ...item(0, "msg_0", "commentary", note),
      ...item(1, "msg_1", "final_answer", answerText),
    ];
    const whole = {
      ...head,
      status: "completed",
      output: [phased("msg_0", "commentary", note), phased("msg_1", "final_answer", answerText)],
      usage,
    };
    const full = await readFixture(
      "responses",
      sseText([...events, event("response.completed", { response: whole })]),
    );
    expect(full.answer).toMatchObject({ text: answerText, commentary: [note] });
    // A final object without its output: the deltas stand in, the commentary's left out.
    const bare = { ...whole, output: [] };
    const deltasOnly = await readFixture(
      "responses",
      sseText([...events, event("response.completed", { response: bare })]),
    );
    expect(deltasOnly.answer.text).toBe(answerText);
  });
});
