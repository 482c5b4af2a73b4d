import { describe, expect, it } from "vitest";
import type { TextFormat } from "../../../src/gateway/index.js";
import { withSimulator } from "../../helpers/sim.js";
import { nativeTools, skuFunction, skuTool, weatherTool } from "../../helpers/text-tools.js";

/** Each wire format through the client, streamed and not: same text, usage present. */
const CASES: {
  format: TextFormat;
  path: string;
  streamPath?: string;
  body: Record<string, unknown>;
  usage: string[];
}[] = [
  {
    format: "chat",
    path: "/v1/chat/completions",
    body: {
      model: "acme-5",
      messages: [{ role: "user", content: "One-line caption for a ceramic mug photo" }],
    },
    usage: ["prompt_tokens", "completion_tokens", "total_tokens"],
  },
  {
    format: "responses",
    path: "/v1/responses",
    body: {
      model: "acme-5",
      input: [{ role: "user", content: [{ type: "input_text", text: "Describe a mug" }] }],
    },
    usage: ["input_tokens", "output_tokens", "total_tokens"],
  },
  {
    format: "messages",
    path: "/v1/messages",
    body: {
      model: "acme-fast",
      max_tokens: 200,
      messages: [{ role: "user", content: "Name a colour for a mug" }],
    },
    usage: ["input_tokens", "output_tokens"],
  },
  {
    format: "native",
    path: "/v1beta/models/acme-2.5-flash:generateContent",
    streamPath: "/v1beta/models/acme-2.5-flash:streamGenerateContent",
    body: { contents: [{ role: "user", parts: [{ text: "A slogan for a mug shop" }] }] },
    usage: ["promptTokenCount", "candidatesTokenCount", "totalTokenCount"],
  },
];

describe.each(CASES)("text endpoint $format", ({ format, path, streamPath, body, usage }) => {
  it("answers in full and as a stream with the same text, finish reason and usage", async () => {
    await withSimulator({}, async ({ client, sim }) => {
      const whole = await client.callText(format, path, { ...body, stream: false });
      expect(whole.text.length).toBeGreaterThan(10);
      for (const field of usage) expect(whole.usage).toHaveProperty(field);
      const deltas: string[] = [];
      const streamed = await client.callText(
        format,
        streamPath ?? path,
        streamPath === undefined ? { ...body, stream: true } : body,
        { onText: (delta) => deltas.push(delta) },
      );
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe(whole.text);
      expect(streamed.text).toBe(whole.text);
      expect(streamed.finishReason).toBe(whole.finishReason);
      expect(streamed.usage).toEqual(whole.usage);
      expect(sim.counters().text).toEqual({ calls: 2, streams: 1 });
    });
  });
});

describe("text endpoints", () => {
  it("streams chat by default (stream defaults to true there)", async () => {
    await withSimulator({}, async ({ client, sim }) => {
      const answer = await client.callText("chat", "/v1/chat/completions", CASES[0]?.body ?? {});
      expect(answer.text.length).toBeGreaterThan(0);
      expect(sim.counters().text.streams).toBe(1);
    });
  });

  it("asks for a function call on /v1/responses when the prompt names a tool", async () => {
    await withSimulator({}, async ({ client }) => {
      for (const stream of [false, true]) {
        const answer = await client.callText("responses", "/v1/responses", {
          model: "acme-5",
          input: "Use get_weather for Paris",
          tools: [weatherTool],
          stream,
        });
        expect(answer.finishReason).toBe("tool_calls");
        expect(answer.toolCalls).toHaveLength(1);
        expect(answer.toolCalls[0]?.name).toBe("get_weather");
        expect(typeof answer.toolCalls[0]?.arguments.city).toBe("string");
      }
    });
  });

  it("asks for a tool on /v1/messages with stop_reason tool_use, streamed too", async () => {
    await withSimulator({}, async ({ client }) => {
      for (const stream of [false, true]) {
        const answer = await client.callText("messages", "/v1/messages", {
          model: "acme-fast",
          max_tokens: 100,
          messages: [{ role: "user", content: "Please call lookup_sku for the blue mug" }],
          tools: [skuTool],
          stream,
        });
        expect(answer.finishReason).toBe("tool_use");
        expect(answer.toolCalls[0]?.name).toBe("lookup_sku");
      }
    });
  });

  it("asks for several tools on /v1/chat/completions, whole and in streamed fragments", async () => {
    await withSimulator({}, async ({ client }) => {
      const answers = [];
      for (const stream of [false, true]) {
        answers.push(
          await client.callText("chat", "/v1/chat/completions", {
            model: "acme-5",
            messages: [
              { role: "user", content: "Call get_weather for Oslo and lookup_sku for MUG-014" },
            ],
            tools: [weatherTool, skuFunction],
            stream,
          }),
        );
      }
      const [whole, streamed] = answers;
      expect(streamed).toMatchObject({ text: "", finishReason: "tool_calls", usage: whole?.usage });
      // The ids differ: they are drawn from the request, and `stream` is part of it.
      for (const answer of answers)
        expect(answer.toolCalls.map((call) => [call.name, call.arguments])).toEqual([
          ["get_weather", { city: "MUG-014", days: 1 }],
          ["lookup_sku", { sku: "MUG-014" }],
        ]);
      for (const call of streamed?.toolCalls ?? []) expect(call.id).toMatch(/^call_\w+$/);
    });
  });

  it("asks for functions on native content generation, whole and streamed", async () => {
    await withSimulator({}, async ({ client }) => {
      const body = {
        contents: [{ role: "user", parts: [{ text: "Use lookup_sku to find MUG-014" }] }],
        tools: nativeTools,
      };
      const path = "/v1beta/models/acme-2.5-flash";
      const whole = await client.callText("native", `${path}:generateContent`, body);
      const streamed = await client.callText("native", `${path}:streamGenerateContent`, body);
      for (const answer of [whole, streamed]) {
        expect(answer).toMatchObject({ text: "", finishReason: "STOP" });
        expect(answer.toolCalls).toEqual([
          { id: "", name: "lookup_sku", arguments: { sku: "MUG-014" } },
        ]);
        expect(answer.usage).toMatchObject({ promptTokenCount: expect.any(Number) });
      }
    });
  });

  it("keeps refusals and a tool call cut off by max_tokens", async () => {
    await withSimulator({ unsafeWord: "forbidden" }, async ({ client }) => {
      const refused = await client.callText("chat", "/v1/chat/completions", {
        model: "acme-5",
        messages: [{ role: "user", content: "Caption a forbidden photo" }],
      });
      expect(refused).toMatchObject({ text: "", finishReason: "stop", toolCalls: [] });
      expect(refused.refusal).toMatch(/^I'm sorry/);
      expect(refused.usage).toMatchObject({ completion_tokens: expect.any(Number) });
      const cut = await client.callText("messages", "/v1/messages", {
        model: "acme-fast",
        max_tokens: 18,
        messages: [{ role: "user", content: "Please call lookup_sku for the blue mug" }],
        tools: [skuTool],
        stream: true,
      });
      expect(cut).toMatchObject({ finishReason: "max_tokens", usage: { output_tokens: 18 } });
      expect(cut.text).toMatch(/lookup_sku/);
      expect(cut.toolCalls).toEqual([
        {
          id: expect.stringMatching(/^toolu_/),
          name: "lookup_sku",
          arguments: {},
          partial: true,
          raw_arguments: expect.stringMatching(/^\{"sku/),
        },
      ]);
      expect('{"sku":"mug"}'.startsWith(cut.toolCalls[0]?.raw_arguments ?? "")).toBe(true);
    });
  });

  it("validates text requests: stop takes at most 4 sequences", async () => {
    await withSimulator({}, async ({ client }) => {
      await expect(
        client.callText("chat", "/v1/chat/completions", {
          model: "acme-5",
          stream: false,
          messages: [{ role: "user", content: "hi" }],
          stop: ["a", "b", "c", "d", "e"],
        }),
      ).rejects.toMatchObject({ status: 400 });
    });
  });
});
