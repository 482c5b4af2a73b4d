import { hashUnit } from "../../core/random.js";
import { isRecord } from "../../core/values.js";
import {
  type Answer,
  answerPrompt,
  countTokens,
  IMAGE_TOKENS,
  idSuffix,
  type Prompt,
  REFUSAL_TEXT,
  refuses,
  truncate,
} from "./answer.js";
import { planToolCalls, type ToolCallPlan, type ToolForce, type ToolSpec } from "./tools.js";
import type { Body, TextContext } from "./types.js";

/**
 * Messages (`/v1/messages`): a system prompt, turns of text, image and tool_use blocks, a final
 * assistant turn that prefills the reply, stop sequences and custom tools. A token limit may
 * cut a tool call's input short; a refusal stops with `stop_reason: refusal`.
 */

export type Block = Record<string, unknown>;

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

/** A messages answer before it is written out: its blocks, and tool input the limit cut short. */
export interface MessagesPlan {
  reply: Record<string, unknown>;
  /** By block index: the JSON text of a tool input that the token limit cut off. */
  cutInputs: Map<number, string>;
}

/** The `data` of a non-streamed messages call. */
export function messagesReply(body: Body, ctx: TextContext): Record<string, unknown> {
  return planMessages(body, ctx).reply;
}

/** The answer: a refusal, tool calls (with a short preamble), or text. */
export function planMessages(body: Body, ctx: TextContext): MessagesPlan {
  const { prompt, prefill } = messagesPrompt(body);
  const base = { id: ctx.id, type: "message", role: "assistant", model: ctx.model };
  const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : undefined;
  const usage = (output: number) => ({ input_tokens: prompt.tokens, output_tokens: output });
  const answer = answerPrompt(ctx.model, prompt, {
    maxTokens,
    stops: Array.isArray(body.stop_sequences) ? (body.stop_sequences as string[]) : [],
    prefill,
    fixed: ctx.verdict,
  });
  if (refuses(prompt, ctx)) {
    // The refusal cuts in after the answer's first words; stop_details says why.
    const text = truncate(answer.text, 2);
    const reply = {
      ...base,
      content: [{ type: "text", text }],
      stop_reason: "refusal",
      stop_sequence: null,
      stop_details: { type: "refusal", category: null, explanation: REFUSAL_TEXT },
      usage: usage(countTokens(text)),
    };
    return { reply, cutInputs: new Map() };
  }
  const force = forceOf(body.tool_choice);
  const calls = planToolCalls(customTools(body), prompt.lastUser, force);
  if (calls.length > 0) {
    // A forced call (or one after a prefill) comes without a preamble, as with the vendor.
    const first = calls[0]?.name ?? "";
    const pick = Math.floor(hashUnit(ctx.model, prompt.all, "intro") * TOOL_INTROS.length);
    const intro = (TOOL_INTROS[pick] ?? "").replace("{name}", first);
    const text = force === undefined && prefill === undefined ? intro : "";
    return toolPlan(base, text, calls, ctx, maxTokens, usage);
  }
  const reply = {
    ...base,
    content: [{ type: "text", text: answer.text }],
    stop_reason: STOP_REASONS[answer.finish],
    stop_sequence: answer.stopSequence,
    usage: usage(answer.tokens),
  };
  return { reply, cutInputs: new Map() };
}

/**
 * Text then one tool_use block per call, written until `maxTokens` runs out: the call it runs
 * out in keeps `{}` as its input (the stream sends the JSON that was written), later ones go.
 */
function toolPlan(
  base: Block,
  intro: string,
  calls: readonly ToolCallPlan[],
  ctx: TextContext,
  maxTokens: number | undefined,
  usage: (output: number) => Block,
): MessagesPlan {
  const limit = maxTokens ?? Number.POSITIVE_INFINITY;
  const content: Block[] = [];
  const cutInputs = new Map<number, string>();
  const introTokens = countTokens(intro);
  let cut = intro !== "" && introTokens > limit;
  if (intro !== "") content.push({ type: "text", text: cut ? truncate(intro, limit) : intro });
  let written = Math.min(introTokens, limit);
  for (const call of calls) {
    if (cut) break;
    const id = `toolu_${idSuffix(`${ctx.id}:${call.name}`)}`;
    const json = JSON.stringify(call.input);
    const need = countTokens(call.name) + countTokens(json);
    cut = written + need > limit;
    if (cut) {
      const left = Math.max(1, limit - written - countTokens(call.name));
      cutInputs.set(content.length, truncate(json, left));
      written = limit;
    } else {
      written += need;
    }
    content.push({ type: "tool_use", id, name: call.name, input: cut ? {} : call.input });
  }
  const reply = {
    ...base,
    content,
    stop_reason: cut ? "max_tokens" : "tool_use",
    stop_sequence: null,
    usage: usage(written),
  };
  return { reply, cutInputs };
}
