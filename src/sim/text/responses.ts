import { isRecord } from "../../core/values.js";
import { answerPrompt, countTokens, IMAGE_TOKENS, idSuffix } from "./answer.js";
import { openAiFinish, openAiUsage, turnsPrompt } from "./chat.js";
import { planToolCall, type ToolSpec } from "./tools.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { sseEvent, streamPieces } from "./wire.js";

/**
 * Responses (`/v1/responses`): a string or input items of text and image blocks, function tools.
 * The gateway's shape is chat-like (`choices`), as the spec states.
 */

function responsesPrompt(body: Body) {
  const input = body.input;
  const toolTokens = body.tools === undefined ? 0 : countTokens(JSON.stringify(body.tools));
  if (typeof input === "string") return turnsPrompt([{ role: "user", content: input }], toolTokens);
  let images = 0;
  const turns = (input as Record<string, unknown>[]).map((item) => {
    const blocks = Array.isArray(item.content) ? item.content.filter(isRecord) : [];
    images += blocks.filter((block) => block.type === "input_image").length;
    const texts = blocks.filter((block) => block.type === "input_text").map((block) => block.text);
    return { role: String(item.role), content: texts.join("\n") };
  });
  return turnsPrompt(turns, images * IMAGE_TOKENS + toolTokens);
}

function functionTools(body: Body): ToolSpec[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  return tools.flatMap((tool) => {
    const fn = tool.function;
    if (tool.type !== "function" || !isRecord(fn) || typeof fn.name !== "string") return [];
    return [{ name: fn.name, schema: fn.parameters }];
  });
}

/** The `data` of a non-streamed responses call: one choice, text or a function call. */
export function responsesReply(body: Body, ctx: TextContext): Record<string, unknown> {
  const prompt = responsesPrompt(body);
  const base = { id: ctx.id, object: "response", created: ctx.created, model: ctx.model };
  const call = planToolCall(functionTools(body), prompt.lastUser);
  if (call !== undefined) {
    const args = JSON.stringify(call.input);
    const toolCall = {
      id: `call_${idSuffix(`${ctx.id}:${call.name}`)}`,
      type: "function",
      function: { name: call.name, arguments: args },
    };
    return {
      ...base,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: [toolCall] },
          finish_reason: "tool_calls",
        },
      ],
      usage: openAiUsage(prompt.tokens, countTokens(call.name) + countTokens(args)),
    };
  }
  const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : undefined;
  const answer = answerPrompt(ctx.model, prompt, { maxTokens });
  return {
    ...base,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: answer.text },
        finish_reason: openAiFinish(answer),
      },
    ],
    usage: openAiUsage(prompt.tokens, answer.tokens),
  };
}

/** A responses stream: `response.created`, text deltas, `response.completed` with the whole reply. */
export function responsesStream(body: Body, ctx: TextContext): TextStream {
  const reply = responsesReply(body, ctx);
  const choice = (reply.choices as { message: { content: string | null } }[])[0];
  const text = choice?.message.content ?? "";
  const event = (type: string, fields: object) => sseEvent({ type, ...fields }, type);
  const created = { id: ctx.id, object: "response", created: ctx.created, model: ctx.model };
  const chunks = [event("response.created", { response: { ...created, status: "in_progress" } })];
  for (const delta of streamPieces(text, ctx.id)) {
    if (delta !== "") chunks.push(event("response.output_text.delta", { delta }));
  }
  chunks.push(event("response.completed", { response: reply }));
  return { contentType: SSE_TYPE, chunks };
}
