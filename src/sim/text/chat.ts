import { isRecord } from "../../core/values.js";
import {
  type Answer,
  answerPrompt,
  countTokens,
  idSuffix,
  type Prompt,
  REFUSAL_TEXT,
  refuses,
} from "./answer.js";
import { functionTools, planToolCalls, type ToolCallPlan, type ToolForce } from "./tools.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { jsonPieces, quirksOf, sseWriter, streamPieces } from "./wire.js";

/**
 * Chat completions (`/v1/chat/completions`): string messages, `n` choices, `stop`, and the
 * vendor's function `tools` (which the contract does not list). Streamed as the vendor sends
 * it: a role chunk, content deltas, tool calls as fragments keyed by `index` (the first with
 * `id`, `type` and `function.name`, later ones adding to `function.arguments`), refusals in
 * `delta.refusal`, a finish chunk per choice, a usage chunk without choices, then `[DONE]`.
 */

interface ChatMessage {
  role: string;
  content: string;
}

/** The prompt of a list of role/content turns (chat messages, or responses items made so). */
export function turnsPrompt(turns: readonly ChatMessage[], extraTokens = 0): Prompt {
  const lastUser = turns.findLast((turn) => turn.role === "user") ?? turns.at(-1);
  return {
    all: turns.map((turn) => `${turn.role}: ${turn.content}`).join("\n"),
    lastUser: lastUser?.content ?? "",
    tokens: turns.reduce((sum, turn) => sum + countTokens(turn.content), 0) + extraTokens,
  };
}

/** Usage in the chat format. */
export function openAiUsage(prompt: number, completion: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** Chat names a stop sequence's end `stop`, like a natural one. */
export function openAiFinish(answer: Answer): string {
  return answer.finish === "length" ? "length" : "stop";
}

/** Prompt tokens the tool definitions cost. */
export function toolTokens(body: Body): number {
  return body.tools === undefined ? 0 : countTokens(JSON.stringify(body.tools));
}

/** One choice: text, a refusal or tool calls, and how it ended. */
interface ChatChoice {
  text: string | null;
  refusal?: string;
  calls: { id: string; name: string; arguments: string }[];
  finish: string;
  tokens: number;
}

function forceOf(choice: unknown): ToolForce {
  if (choice === "none") return "none";
  if (choice === "required") return "any";
  const fn = isRecord(choice) ? choice.function : undefined;
  return isRecord(fn) && typeof fn.name === "string" ? { name: fn.name } : undefined;
}

function callChoice(calls: readonly ToolCallPlan[], seed: string): ChatChoice {
  const wire = calls.map((call, i) => ({
    id: `call_${idSuffix(`${seed}:${i}:${call.name}`)}`,
    name: call.name,
    arguments: JSON.stringify(call.input),
  }));
  const tokens = wire.reduce((sum, c) => sum + countTokens(c.name) + countTokens(c.arguments), 0);
  return { text: null, calls: wire, finish: "tool_calls", tokens };
}

function chatChoices(body: Body, ctx: TextContext): { prompt: Prompt; choices: ChatChoice[] } {
  const prompt = turnsPrompt(body.messages as ChatMessage[], toolTokens(body));
  const count = typeof body.n === "number" ? body.n : 1;
  const indexes = Array.from({ length: count }, (_, index) => index);
  if (refuses(prompt, ctx)) {
    const tokens = countTokens(REFUSAL_TEXT);
    const refusal = { text: null, refusal: REFUSAL_TEXT, calls: [], finish: "stop", tokens };
    return { prompt, choices: indexes.map(() => refusal) };
  }
  const calls = planToolCalls(
    functionTools(body.tools),
    prompt.lastUser,
    forceOf(body.tool_choice),
  );
  if (calls.length > 0) {
    return { prompt, choices: indexes.map((index) => callChoice(calls, `${ctx.id}:${index}`)) };
  }
  const stop = body.stop;
  const limits = {
    maxTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
    stops: typeof stop === "string" ? [stop] : Array.isArray(stop) ? (stop as string[]) : [],
  };
  const answers: Answer[] = [];
  // Alternatives differ: a variant that repeats an earlier text is drawn again.
  for (let variant = 0; answers.length < count; variant += 1) {
    const answer = answerPrompt(ctx.model, prompt, limits, variant);
    const repeated = answers.some((other) => other.text === answer.text);
    if (!repeated || variant > count + 16) answers.push(answer);
  }
  const choices = answers.map((answer) => ({
    text: answer.text,
    calls: [],
    finish: openAiFinish(answer),
    tokens: answer.tokens,
  }));
  return { prompt, choices };
}

function usageOf(prompt: Prompt, choices: readonly ChatChoice[]) {
  return openAiUsage(
    prompt.tokens,
    choices.reduce((sum, choice) => sum + choice.tokens, 0),
  );
}

/** The `data` of a non-streamed chat completion. */
export function chatReply(body: Body, ctx: TextContext): Record<string, unknown> {
  const { prompt, choices } = chatChoices(body, ctx);
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: choices.map((choice, index) => ({
      index,
      message: {
        role: "assistant",
        content: choice.text,
        ...(choice.refusal === undefined ? {} : { refusal: choice.refusal }),
        ...(choice.calls.length === 0
          ? {}
          : {
              tool_calls: choice.calls.map(({ id, name, arguments: args }) => ({
                id,
                type: "function",
                function: { name, arguments: args },
              })),
            }),
      },
      finish_reason: choice.finish,
    })),
    usage: usageOf(prompt, choices),
  };
}

/** A chat completion stream, choice after choice, then the usage and `[DONE]`. */
export function chatStream(body: Body, ctx: TextContext): TextStream {
  const { prompt, choices } = chatChoices(body, ctx);
  const quirks = quirksOf(ctx.id);
  const sse = sseWriter(quirks);
  const base = {
    id: ctx.id,
    object: "chat.completion.chunk",
    created: ctx.created,
    model: ctx.model,
  };
  const chunk = (index: number, delta: object, finish: string | null = null) =>
    sse({ ...base, choices: [{ index, delta, logprobs: null, finish_reason: finish }] });
  const chunks: string[] = [];
  choices.forEach((choice, index) => {
    const seed = `${ctx.id}:${index}`;
    chunks.push(chunk(index, { role: "assistant", content: choice.text === null ? null : "" }));
    if (choice.text !== null) {
      for (const content of streamPieces(choice.text, seed, quirks.emptyDeltas)) {
        if (content !== "" || quirks.emptyDeltas) chunks.push(chunk(index, { content }));
      }
    }
    if (choice.refusal !== undefined) {
      for (const refusal of streamPieces(choice.refusal, seed))
        chunks.push(chunk(index, { refusal }));
    }
    choice.calls.forEach(({ id, name, arguments: args }, at) => {
      const [first, ...rest] = jsonPieces(args);
      const head = { index: at, id, type: "function", function: { name, arguments: first } };
      chunks.push(chunk(index, { tool_calls: [head] }));
      for (const piece of rest) {
        chunks.push(chunk(index, { tool_calls: [{ index: at, function: { arguments: piece } }] }));
      }
    });
    chunks.push(chunk(index, {}, choice.finish));
  });
  // As with `stream_options.include_usage`: a last chunk with no choices carries the usage.
  chunks.push(sse({ ...base, choices: [], usage: usageOf(prompt, choices) }));
  chunks.push(sse("[DONE]"));
  return { contentType: SSE_TYPE, chunks, splitCharacters: quirks.splitCharacters };
}
