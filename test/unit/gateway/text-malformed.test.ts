import { describe, expect, it } from "vitest";
import type { SseEvent } from "../../../src/gateway/sse.js";
import type { TextFormat } from "../../../src/gateway/text-answer.js";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { readTextStream } from "../../../src/gateway/text-stream.js";

/** Malformed replies and streams: each an Error naming the format and the problem. */

async function* eventsOf(list: readonly SseEvent[]): AsyncGenerator<SseEvent> {
  yield* list;
}

/** What a reader says about a malformed answer: an Error, never a TypeError. */
function failure(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(TypeError);
    return error as Error;
  }
  throw new Error("expected a failure");
}

async function streamFailure(format: TextFormat, data: unknown[]): Promise<Error> {
  const events = data.map((entry) => ({
    event: undefined,
    data: typeof entry === "string" ? entry : JSON.stringify(entry),
  }));
  try {
    await readTextStream(format, eventsOf(events));
  } catch (error) {
    expect(error).not.toBeInstanceOf(TypeError);
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("malformed text answers", () => {
  it("names the format and the problem of a malformed reply", () => {
    const cases: [TextFormat, unknown, RegExp][] = [
      ["chat", "nope", /^chat reply: the body is not a JSON object$/],
      ["chat", { code: 200, data: { choices: "x" } }, /^chat reply: no choices$/],
      ["chat", { code: 500, data: {} }, /^chat reply: envelope code 500$/],
      ["chat", { code: 200, data: null }, /^chat reply: data is not an object$/],
      [
        "chat",
        { code: 200, data: { choices: [{ index: 0, message: { content: 3 } }] } },
        /content is not a string/,
      ],
      [
        "responses",
        {
          choices: [
            {
              message: { content: null, tool_calls: [{ function: { name: "f", arguments: "{" } }] },
            },
          ],
        },
        /^responses reply: the arguments of tool call f are not JSON$/,
      ],
      [
        "responses",
        { choices: [{ message: { tool_calls: [{ function: {} }] } }] },
        /tool_calls\[0\] has no function name/,
      ],
      [
        "messages",
        { code: 200, data: { content: "hi" } },
        /^messages reply: content is not an array of blocks$/,
      ],
      ["messages", { content: [{ type: "tool_use", input: {} }] }, /a tool_use block has no name/],
      ["native", { code: 200, data: { candidates: [] } }, /^native reply: no candidates$/],
      [
        "native",
        { candidates: [], promptFeedback: { blockReason: "SAFETY" } },
        /blocked \(SAFETY\)/,
      ],
      [
        "native",
        { candidates: [{ content: { parts: "x" } }] },
        /a candidate's parts are not a list/,
      ],
      [
        "chat",
        { error: { code: 429, type: "rate_limit_error", message: "slow down" } },
        /rate_limit_error: slow down/,
      ],
    ];
    for (const [format, json, message] of cases) {
      expect(failure(() => readTextReply(format, json)).message).toMatch(message);
    }
  });

  it("names the format and the problem of a malformed or cut-off stream", async () => {
    expect((await streamFailure("chat", ["{not json"])).message).toMatch(
      /^chat stream: event data is not JSON/,
    );
    expect((await streamFailure("chat", ["[1,2]"])).message).toMatch(
      /event data is not a JSON object/,
    );
    expect(
      (await streamFailure("chat", [{ choices: [{ index: 0, delta: { content: "a" } }] }])).message,
    ).toMatch(/^chat stream: the stream ended before \[DONE\]$/);
    expect((await streamFailure("chat", [{ choices: 3 }])).message).toMatch(
      /choices is not an array/,
    );
    expect(
      (await streamFailure("responses", [{ type: "response.output_text.delta", delta: "a" }]))
        .message,
    ).toMatch(/^responses stream: the stream ended before response.completed$/);
    expect(
      (
        await streamFailure("responses", [
          { type: "response.failed", response: { error: { message: "boom" } } },
        ])
      ).message,
    ).toMatch(/the response failed: boom/);
    expect(
      (await streamFailure("messages", [{ type: "message_start", message: { content: [] } }]))
        .message,
    ).toMatch(/^messages stream: the stream ended before message_delta$/);
    expect(
      (await streamFailure("messages", [{ type: "content_block_delta", index: 2, delta: {} }]))
        .message,
    ).toMatch(/a delta for block 2 before its start/);
    expect(
      (
        await streamFailure("messages", [
          { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        ])
      ).message,
    ).toMatch(/^messages stream: the stream reported overloaded_error: Overloaded$/);
    expect(
      (await streamFailure("native", [{ candidates: [{ content: { parts: [{ text: "a" }] } }] }]))
        .message,
    ).toMatch(/^native stream: the stream ended before a finishReason$/);
    expect((await streamFailure("native", [{ candidates: [null] }])).message).toMatch(
      /candidates\[0\] is not an object/,
    );
  });

  it("reports a messages tool input whose JSON fragments do not parse", async () => {
    const error = await streamFailure("messages", [
      { type: "message_start", message: { content: [], usage: { input_tokens: 1 } } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "f", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"a":' },
      },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 3 } },
    ]);
    expect(error.message).toBe("messages stream: the arguments of tool call f are not JSON");
  });
});
