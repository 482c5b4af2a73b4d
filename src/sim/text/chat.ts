import { type Answer, answerPrompt, countTokens, type Prompt } from "./answer.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { sseEvent, streamPieces } from "./wire.js";

/** Chat completions (`/v1/chat/completions`): string messages, `n` choices, `stop`, no tools. */

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

/** Usage in the chat and responses formats. */
export function openAiUsage(prompt: number, completion: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

/** Chat and responses name a stop sequence's end `stop`, like a natural one. */
export function openAiFinish(answer: Answer): string {
  return answer.finish === "length" ? "length" : "stop";
}

function chatAnswers(body: Body, ctx: TextContext): { prompt: Prompt; answers: Answer[] } {
  const prompt = turnsPrompt(body.messages as ChatMessage[]);
  const stop = body.stop;
  const limits = {
    maxTokens: typeof body.max_tokens === "number" ? body.max_tokens : undefined,
    stops: typeof stop === "string" ? [stop] : Array.isArray(stop) ? (stop as string[]) : [],
  };
  const count = typeof body.n === "number" ? body.n : 1;
  const answers: Answer[] = [];
  // Alternatives differ: a variant that repeats an earlier text is drawn again.
  for (let variant = 0; answers.length < count; variant += 1) {
    const answer = answerPrompt(ctx.model, prompt, limits, variant);
    const repeated = answers.some((other) => other.text === answer.text);
    if (!repeated || variant > count + 16) answers.push(answer);
  }
  return { prompt, answers };
}

function completionTokens(answers: readonly Answer[]): number {
  return answers.reduce((sum, answer) => sum + answer.tokens, 0);
}

/** The `data` of a non-streamed chat completion. */
export function chatReply(body: Body, ctx: TextContext): Record<string, unknown> {
  const { prompt, answers } = chatAnswers(body, ctx);
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: answers.map((answer, index) => ({
      index,
      message: { role: "assistant", content: answer.text },
      finish_reason: openAiFinish(answer),
    })),
    usage: openAiUsage(prompt.tokens, completionTokens(answers)),
  };
}

/** A chat completion stream: role, content pieces and a finish chunk per choice, then `[DONE]`. */
export function chatStream(body: Body, ctx: TextContext): TextStream {
  const { prompt, answers } = chatAnswers(body, ctx);
  const base = {
    id: ctx.id,
    object: "chat.completion.chunk",
    created: ctx.created,
    model: ctx.model,
  };
  const chunk = (index: number, delta: object, finish: string | null = null, extra = {}) =>
    sseEvent({ ...base, choices: [{ index, delta, finish_reason: finish }], ...extra });
  const chunks: string[] = [];
  answers.forEach((answer, index) => {
    chunks.push(chunk(index, { role: "assistant", content: "" }));
    for (const piece of streamPieces(answer.text, `${ctx.id}:${index}`)) {
      if (piece !== "") chunks.push(chunk(index, { content: piece }));
    }
    // Usage rides on the very last chunk, once every choice is done.
    const last = index === answers.length - 1;
    const usage = openAiUsage(prompt.tokens, completionTokens(answers));
    chunks.push(chunk(index, {}, openAiFinish(answer), last ? { usage } : {}));
  });
  chunks.push(sseEvent("[DONE]"));
  return { contentType: SSE_TYPE, chunks };
}
