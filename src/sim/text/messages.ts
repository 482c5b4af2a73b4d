import { hashUnit } from "../../core/random.js";
import { isRecord } from "../../core/values.js";
import {
  type Answer,
  answerPrompt,
  countTokens,
  IMAGE_TOKENS,
  idSuffix,
  type Prompt,
} from "./answer.js";
import { planToolCall, type ToolForce, type ToolSpec } from "./tools.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { sseEvent, streamPieces } from "./wire.js";

/**
 * Messages (`/v1/messages`): a system prompt, turns of text, image and tool_use blocks, a final
 * assistant turn that prefills the reply, stop sequences and custom tools.
 */

type Block = Record<string, unknown>;

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function textOf(blocks: readonly Block[]): string {
  return blocks.flatMap((block) => (block.type === "text" ? [String(block.text)] : [])).join("\n");
}

function messagesPrompt(body: Body): { prompt: Prompt; prefill: string | undefined } {
  const turns = (body.messages as Block[]).map((turn) => ({
    role: String(turn.role),
    blocks: blocksOf(turn.content),
  }));
  const last = turns.at(-1);
  const prefill = last?.role === "assistant" ? textOf(last.blocks) : undefined;
  const system = textOf(blocksOf(body.system ?? ""));
  let tokens =
    countTokens(system) + (body.tools === undefined ? 0 : countTokens(JSON.stringify(body.tools)));
  for (const { blocks } of turns) {
    tokens += countTokens(textOf(blocks));
    for (const block of blocks) {
      if (block.type === "image") tokens += IMAGE_TOKENS;
      if (block.type === "tool_use") tokens += countTokens(JSON.stringify(block.input ?? {}));
    }
  }
  const lastUser = turns.findLast((turn) => turn.role === "user");
  const all = [system, ...turns.map((turn) => `${turn.role}: ${textOf(turn.blocks)}`)];
  return {
    prompt: { all: all.join("\n"), lastUser: textOf(lastUser?.blocks ?? []), tokens },
    prefill,
  };
}

// Custom tools carry an input schema; the built-in ones (computer, editor, bash) are not called.
function customTools(body: Body): ToolSpec[] {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  return tools.flatMap((tool) =>
    typeof tool.name === "string" && tool.input_schema !== undefined
      ? [{ name: tool.name, schema: tool.input_schema }]
      : [],
  );
}

function forceOf(choice: unknown): ToolForce {
  if (!isRecord(choice)) return undefined;
  if (choice.type === "any") return "any";
  if (choice.type === "tool" && typeof choice.name === "string") return { name: choice.name };
  return undefined;
}

const STOP_REASONS: Readonly<Record<Answer["finish"], string>> = {
  stop: "end_turn",
  length: "max_tokens",
  stop_sequence: "stop_sequence",
};

const TOOL_INTROS = [
  "I'll use {name} for this.",
  "Let me check that with {name}.",
  "I'll call {name} to find out.",
];

/** The `data` of a non-streamed messages call. */
export function messagesReply(body: Body, ctx: TextContext): Record<string, unknown> {
  const { prompt, prefill } = messagesPrompt(body);
  const base = { id: ctx.id, type: "message", role: "assistant" };
  const force = forceOf(body.tool_choice);
  const call = planToolCall(customTools(body), prompt.lastUser, force);
  if (call !== undefined) {
    const id = `toolu_${idSuffix(`${ctx.id}:${call.name}`)}`;
    const toolUse = { type: "tool_use", id, name: call.name, input: call.input };
    // A forced call (or one after a prefill) comes without a preamble, as with the vendor.
    const intro =
      TOOL_INTROS[Math.floor(hashUnit(ctx.model, prompt.all, "intro") * TOOL_INTROS.length)] ?? "";
    const text =
      force === undefined && prefill === undefined ? intro.replace("{name}", call.name) : "";
    const content = text === "" ? [toolUse] : [{ type: "text", text }, toolUse];
    const output =
      countTokens(text) + countTokens(call.name) + countTokens(JSON.stringify(call.input));
    return {
      ...base,
      content,
      model: ctx.model,
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: prompt.tokens, output_tokens: output },
    };
  }
  const answer = answerPrompt(ctx.model, prompt, {
    maxTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
    stops: Array.isArray(body.stop_sequences) ? (body.stop_sequences as string[]) : [],
    prefill,
  });
  return {
    ...base,
    content: [{ type: "text", text: answer.text }],
    model: ctx.model,
    stop_reason: STOP_REASONS[answer.finish],
    stop_sequence: answer.stopSequence,
    usage: { input_tokens: prompt.tokens, output_tokens: answer.tokens },
  };
}

/** The vendor's event sequence: message_start, content blocks with deltas, message_delta, stop. */
export function messagesStream(body: Body, ctx: TextContext): TextStream {
  const reply = messagesReply(body, ctx);
  const usage = reply.usage as { input_tokens: number; output_tokens: number };
  const event = (type: string, fields: object = {}) => sseEvent({ type, ...fields }, type);
  const start = { ...reply, content: [], stop_reason: null, stop_sequence: null };
  const chunks = [
    event("message_start", { message: { ...start, usage: { ...usage, output_tokens: 1 } } }),
  ];
  (reply.content as Block[]).forEach((block, index) => {
    const empty = block.type === "text" ? { ...block, text: "" } : { ...block, input: {} };
    chunks.push(event("content_block_start", { index, content_block: empty }));
    if (index === 0) chunks.push(event("ping"));
    const deltas =
      block.type === "text"
        ? streamPieces(String(block.text), `${ctx.id}:${index}`)
            .filter((text) => text !== "")
            .map((text) => ({ type: "text_delta", text }))
        : jsonPieces(JSON.stringify(block.input)).map((partial_json) => ({
            type: "input_json_delta",
            partial_json,
          }));
    for (const delta of deltas) chunks.push(event("content_block_delta", { index, delta }));
    chunks.push(event("content_block_stop", { index }));
  });
  const delta = { stop_reason: reply.stop_reason, stop_sequence: reply.stop_sequence };
  chunks.push(event("message_delta", { delta, usage: { output_tokens: usage.output_tokens } }));
  chunks.push(event("message_stop"));
  return { contentType: SSE_TYPE, chunks };
}

// Tool input arrives as JSON fragments that only parse once joined; the first is empty.
function jsonPieces(json: string): string[] {
  const pieces = [""];
  for (let i = 0; i < json.length; i += 12) pieces.push(json.slice(i, i + 12));
  return pieces;
}
