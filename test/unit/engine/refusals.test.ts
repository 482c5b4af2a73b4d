import { describe, expect, it } from "vitest";
import { refusalOf } from "../../../src/engine/refusals.js";
import { answerRow } from "../../../src/engine/text-tasks.js";
import type { TextAnswer, TextFormat } from "../../../src/gateway/index.js";
import { readTextReply } from "../../../src/gateway/text-reply.js";
import { replyText } from "../../../src/sim/text/index.js";
import { BODY, ctx } from "../../helpers/text-bodies.js";
import { skuTool } from "../../helpers/text-tools.js";

/** Which answers refuse, read from each format's replies as the store keeps them. */

const SORRY = "I'm sorry, but I can't help with that request.";

function refusalIn(format: TextFormat, answer: TextAnswer): string | null {
  return refusalOf(answerRow({ format, streamed: false, answer, files: [], cost: null }));
}

/** The simulator's whole reply to `text` in `format`, read by gwrun's reader. */
function simulated(format: TextFormat, text: string, refuse: boolean): string | null {
  const reply = replyText(format, BODY[format](text), { ...ctx, refuse });
  return refusalIn(format, readTextReply(format, reply));
}

describe("refused answers", () => {
  it("finds a refusal in each format's own way, with the vendor's finish reason", () => {
    const prompt = "One-line caption for a ceramic mug photo";
    expect(simulated("chat", prompt, true)).toBe(`refused: ${SORRY} (finish reason stop)`);
    expect(simulated("responses", prompt, true)).toBe(`refused: ${SORRY} (finish reason stop)`);
    expect(simulated("messages", prompt, true)).toBe(`refused: ${SORRY} (finish reason refusal)`);
    expect(simulated("native", prompt, true)).toBe("refused: no text (finish reason SAFETY)");
    for (const format of ["chat", "responses", "messages", "native"] as const)
      expect(simulated(format, prompt, false), format).toBeNull();
  });

  it("takes a filter's stop, or no text at all, as a refusal; a tool call or a cut-off text is an answer", () => {
    const chat = (content: string | null, finish: string, extra = {}) =>
      refusalIn(
        "chat",
        readTextReply("chat", {
          choices: [
            { index: 0, message: { role: "assistant", content, ...extra }, finish_reason: finish },
          ],
        }),
      );
    expect(chat("A mug on", "content_filter")).toBe(
      "refused: the answer was cut short (finish reason content_filter)",
    );
    expect(chat("  \n", "stop")).toBe("refused: no text (finish reason stop)");
    expect(chat("A mug on an oak", "length")).toBeNull();
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    expect(chat(null, "tool_calls", { tool_calls: [call] })).toBeNull();
    const native = readTextReply("native", {
      candidates: [
        {
          content: { role: "model", parts: [{ text: "A mug" }] },
          finishReason: "PROHIBITED_CONTENT",
        },
      ],
    });
    expect(refusalIn("native", native)).toBe(
      "refused: the answer was cut short (finish reason PROHIBITED_CONTENT)",
    );
    const told = readTextReply("messages", {
      content: [{ type: "text", text: "Hello.." }],
      stop_reason: "refusal",
      stop_details: { type: "refusal", explanation: "Declined:\u001b[31m cyber harm.\n" },
    });
    // The model's words are gateway text: one line, no terminal escapes.
    expect(refusalIn("messages", told)).toBe(
      "refused: Declined: cyber harm. (finish reason refusal)",
    );
    const tools = readTextReply("messages", {
      content: [{ type: "tool_use", id: "t1", name: skuTool.name, input: { sku: "MUG-014" } }],
      stop_reason: "tool_use",
    });
    expect(refusalIn("messages", tools)).toBeNull();
  });
});
