import { describe, expect, it } from "vitest";
import { replyText, type TextFormat } from "../../../src/sim/text/index.js";
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
import { skuTool, weatherTool } from "../../helpers/text-tools.js";

/** Each format's answer text, finish reason and usage, from its reply data. */
const READ: Record<TextFormat, (reply: Json) => { text: string; finish: string }> = {
  chat: (d) => ({ text: d.choices[0].message.content, finish: d.choices[0].finish_reason }),
  // The Response object's status stands for a finish reason.
  responses: (d) => ({ text: d.output.at(-1).content[0].text, finish: d.status }),
  messages: (d) => ({ text: d.content[0].text, finish: d.stop_reason }),
  native: (d) => ({
    text: d.candidates[0].content.parts[0].text,
    finish: d.candidates[0].finishReason,
  }),
};

/** The simulator's token count: words and punctuation marks. */
function tokens(text: string): number {
  return text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu)?.length ?? 0;
}

const PROMPTS = [
  "One-line caption for a ceramic mug photo",
  "Describe a red bicycle leaning on a wall in Amsterdam",
  "A slogan for a small coffee roastery",
  "Décris une tasse émaillée à Zürich",
  "hi",
  "Write a caption, please: golden retriever puppy, snow, morning light.",
];

describe.each(["chat", "responses", "messages", "native"] as const)("%s answers", (format) => {
  // The server settles the context's model from the request (or the native path).
  const text = (prompt: string, model = ctx.model) =>
    READ[format](data(format, BODY[format](prompt), { ...ctx, model })).text;

  it("gives the same text for the same model and input", () => {
    for (const prompt of PROMPTS) expect(text(prompt)).toBe(text(prompt));
  });

  it("gives different texts for different inputs or models", () => {
    const texts = PROMPTS.map((prompt) => text(prompt));
    expect(new Set(texts).size).toBe(texts.length);
    expect(text(PROMPTS[0] as string, "acme-other")).not.toBe(text(PROMPTS[0] as string));
  });

  it("answers in one or two caption-like sentences of 10 to 30 words about the input", () => {
    for (const prompt of PROMPTS) {
      const answer = text(prompt);
      const words = answer.split(/\s+/).length;
      expect(words).toBeGreaterThanOrEqual(10);
      expect(words).toBeLessThanOrEqual(30);
      expect(answer).toMatch(/^An? .*\.$/);
      expect(answer.match(/[.!?](\s|$)/g)?.length).toBeLessThanOrEqual(2);
    }
    expect(text("Caption for a ceramic mug photo")).toContain("ceramic mug");
  });

  it("stops at the token limit and says so", () => {
    const full = READ[format](data(format, BODY[format](PROMPTS[1] as string)));
    const limited =
      format === "native"
        ? { ...BODY[format](PROMPTS[1] as string), generationConfig: { maxOutputTokens: 4 } }
        : { ...BODY[format](PROMPTS[1] as string), max_tokens: 4 };
    const cut = READ[format](data(format, limited));
    expect(full.text.startsWith(cut.text)).toBe(true);
    expect(tokens(cut.text)).toBe(4);
    const names = {
      chat: "length",
      responses: "incomplete",
      messages: "max_tokens",
      native: "MAX_TOKENS",
    };
    expect(cut.finish).toBe(names[format]);
    expect(full.finish).toBe(
      { chat: "stop", responses: "completed", messages: "end_turn", native: "STOP" }[format],
    );
  });
});

describe("text usage", () => {
  it("counts chat and responses tokens with total = prompt + completion, in each format's names", () => {
    const { prompt_tokens, completion_tokens, total_tokens } = data(
      "chat",
      chat(PROMPTS[0] as string),
    ).usage;
    expect(prompt_tokens).toBeGreaterThan(0);
    expect(completion_tokens).toBeGreaterThanOrEqual(10);
    expect(total_tokens).toBe(prompt_tokens + completion_tokens);
    const usage = data("responses", responses("x y")).usage;
    expect(usage).toEqual({
      input_tokens: 2,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: expect.any(Number),
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2 + usage.output_tokens,
    });
    expect(usage.output_tokens).toBeGreaterThanOrEqual(10);
    // Tokens are words and punctuation marks: "One-line" is three.
    expect(
      data("chat", { model: "m", messages: [{ role: "user", content: "One-line caption." }] }).usage
        .prompt_tokens,
    ).toBe(5);
  });

  it("counts messages tokens as input_tokens and output_tokens", () => {
    const reply = data("messages", messages("Name a colour for a mug", { system: "Be brief." }));
    expect(reply.usage).toEqual({ input_tokens: 9, output_tokens: expect.any(Number) });
    expect(reply.usage.output_tokens).toBeGreaterThanOrEqual(10);
  });

  it("places native usageMetadata beside data, with thinking tokens only for thinking models", () => {
    const body = native("A slogan for a mug shop");
    const whole = replyText("native", body, ctx);
    expect(Object.keys(whole).sort()).toEqual(["code", "data", "usageMetadata"]);
    expect(Object.keys(whole.data as Json).sort()).toEqual([
      "candidates",
      "modelVersion",
      "promptFeedback",
      "responseId",
    ]);
    const usage = whole.usageMetadata as Json;
    expect(usage).toMatchObject({ promptTokenCount: 6, thoughtsTokenCount: 0 });
    expect(usage.promptTokensDetails).toEqual([{ modality: "TEXT", tokenCount: 6 }]);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.candidatesTokenCount);
    const thinking = replyText("native", body, { ...ctx, model: "acme-2.5-pro-thinking" });
    const deep = thinking.usageMetadata as Json;
    expect(deep.thoughtsTokenCount).toBeGreaterThan(0);
    expect(deep.totalTokenCount).toBe(
      deep.promptTokenCount + deep.candidatesTokenCount + deep.thoughtsTokenCount,
    );
    const candidate = (whole.data as Json).candidates[0];
    expect(candidate).toMatchObject({ index: 0, content: { role: "model" }, finishReason: "STOP" });
    expect(candidate.safetyRatings[0]).toEqual({
      category: expect.any(String),
      probability: "NEGLIGIBLE",
    });
  });
});

describe("text shapes", () => {
  it("replies to chat in the envelope with n different choices and summed completion tokens", () => {
    const whole = replyText("chat", chat(PROMPTS[0] as string, { n: 2 }), ctx);
    expect(whole.code).toBe(200);
    const reply = whole.data as Json;
    expect(reply).toMatchObject({
      id: ctx.id,
      object: "chat.completion",
      created: ctx.created,
      model: ctx.model,
    });
    expect(reply.choices).toHaveLength(2);
    const [first, second] = reply.choices;
    expect(first.index).toBe(0);
    expect(second.index).toBe(1);
    expect(first.message.role).toBe("assistant");
    expect(first.message.content).not.toBe(second.message.content);
    // The first choice is the n = 1 answer.
    expect(first.message.content).toBe(
      data("chat", chat(PROMPTS[0] as string)).choices[0].message.content,
    );
    const completion = tokens(first.message.content) + tokens(second.message.content);
    expect(reply.usage.completion_tokens).toBe(completion);
  });

  it("cuts a chat answer before a stop sequence, with finish_reason stop", () => {
    const full: string = data("chat", chat("A photo of a lighthouse")).choices[0].message.content;
    const word = ` ${full.split(" ")[3]}`;
    for (const stop of [word, ["@@", word]]) {
      const choice = data("chat", chat("A photo of a lighthouse", { stop })).choices[0];
      expect(choice.message.content).toBe(full.slice(0, full.indexOf(word)));
      expect(choice.finish_reason).toBe("stop");
    }
  });

  it("cuts a messages answer before a stop sequence and names it", () => {
    const full: string = data("messages", messages("A photo of a lighthouse")).content[0].text;
    const word = full.split(" ")[2] as string;
    const reply = data(
      "messages",
      messages("A photo of a lighthouse", { stop_sequences: ["zzz", word] }),
    );
    expect(reply.content[0].text).toBe(full.slice(0, full.indexOf(word)));
    expect(reply).toMatchObject({ stop_reason: "stop_sequence", stop_sequence: word });
    expect(data("messages", messages("A photo of a lighthouse")).stop_sequence).toBeNull();
  });

  it("continues a messages prefill instead of repeating it", () => {
    const turns = (prefill: string) => ({
      model: "acme-fast",
      max_tokens: 100,
      messages: [
        { role: "user", content: "Caption a photo of a red bicycle in Amsterdam" },
        { role: "assistant", content: prefill },
      ],
    });
    const afterSentence: string = data("messages", turns("Here is a caption:")).content[0].text;
    expect(afterSentence).toMatch(/^ An? /);
    expect(afterSentence).not.toContain("Here is a caption");
    const midSentence: string = data("messages", turns("The picture shows")).content[0].text;
    expect(midSentence).toMatch(/^ an? /);
    expect(midSentence).not.toContain("The picture shows");
  });

  it("shapes a messages reply like the vendor's", () => {
    const reply = data("messages", messages("Name a colour for a mug"));
    expect(reply).toMatchObject({
      id: ctx.id,
      type: "message",
      role: "assistant",
      model: ctx.model,
    });
    expect(reply.content).toEqual([{ type: "text", text: expect.any(String) }]);
  });
});

/** The shared weather tool with a parameter of every JSON type, for argument synthesis. */
const weather = {
  ...weatherTool,
  function: {
    ...weatherTool.function,
    parameters: {
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "integer" },
        metric: { type: "boolean" },
        hours: { type: "array" },
        extra: { type: "object" },
        unit: { type: "string", enum: ["C", "F"] },
        note: { type: "string" },
      },
      required: ["city", "days", "metric", "hours", "extra", "unit"],
    },
  },
};

describe("text tool calls", () => {
  it("calls a responses function the prompt names, arguments from its schema", () => {
    const reply = data("responses", {
      model: "acme-5",
      input: "Use get_weather for Paris",
      tools: [weather],
    });
    expect(reply.status).toBe("completed");
    expect(reply.output).toHaveLength(1);
    const [call] = reply.output;
    expect(call).toMatchObject({
      type: "function_call",
      id: expect.stringMatching(/^fc_\w+$/),
      call_id: expect.stringMatching(/^call_\w+$/),
      name: "get_weather",
      status: "completed",
    });
    expect(JSON.parse(call.arguments)).toEqual({
      city: "Paris",
      days: 1,
      metric: true,
      hours: [],
      extra: {},
      unit: "C",
    });
    expect(reply.usage.total_tokens).toBe(reply.usage.input_tokens + reply.usage.output_tokens);
  });

  it("answers in text when the prompt does not name the tool", () => {
    const reply = data("responses", responses("What is the weather like?", { tools: [weather] }));
    expect(reply.status).toBe("completed");
    expect(reply.output.map((item: Json) => item.type)).toEqual(["message"]);
    expect(reply.output[0].content[0]).toEqual({
      type: "output_text",
      text: expect.any(String),
      annotations: [],
    });
    const message = data("messages", messages("Find me a blue mug", { tools: [skuTool] }));
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content.map((block: Json) => block.type)).toEqual(["text"]);
  });

  it("calls a messages tool with a short preamble and stop_reason tool_use", () => {
    const reply = data(
      "messages",
      messages("Please call lookup_sku for the blue mug", { tools: [skuTool] }),
    );
    expect(reply.stop_reason).toBe("tool_use");
    expect(reply.content.map((block: Json) => block.type)).toEqual(["text", "tool_use"]);
    expect(reply.content[0].text).toContain("lookup_sku");
    expect(reply.content[1]).toEqual({
      type: "tool_use",
      id: expect.stringMatching(/^toolu_\w+$/),
      name: "lookup_sku",
      input: { sku: "mug" },
    });
  });

  it("calls the tool a messages tool_choice forces, without a preamble", () => {
    const body = messages("Find me a blue mug", {
      tools: [skuTool],
      tool_choice: { type: "tool", name: "lookup_sku" },
    });
    const reply = data("messages", body);
    expect(reply.content.map((block: Json) => block.type)).toEqual(["tool_use"]);
    expect(reply.stop_reason).toBe("tool_use");
  });
});
