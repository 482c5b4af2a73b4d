import { hashUnit } from "../../core/random.js";
import { isRecord } from "../../core/values.js";
import { type Answer, answerPrompt, countTokens, type Prompt } from "./answer.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { sseEvent, streamPieces } from "./wire.js";

/**
 * Native content generation (`/v1beta/models/<model>:<method>`): contents of text parts,
 * `generationConfig.maxOutputTokens` (and `stopSequences`, the vendor's field; the spec shows
 * none), usage in `usageMetadata`.
 */

const SAFETY_RATINGS = [
  "HARM_CATEGORY_SEXUALLY_EXPLICIT",
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
].map((category) => ({ category, probability: "NEGLIGIBLE" }));

function nativePrompt(body: Body): Prompt {
  const turns = (body.contents as Record<string, unknown>[]).map((content) => {
    const parts = Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
    return {
      role: typeof content.role === "string" ? content.role : "user",
      text: parts.map((part) => String(part.text ?? "")).join("\n"),
    };
  });
  const lastUser = turns.findLast((turn) => turn.role === "user") ?? turns.at(-1);
  return {
    all: turns.map((turn) => `${turn.role}: ${turn.text}`).join("\n"),
    lastUser: lastUser?.text ?? "",
    tokens: turns.reduce((sum, turn) => sum + countTokens(turn.text), 0),
  };
}

function nativeAnswer(body: Body, ctx: TextContext) {
  const prompt = nativePrompt(body);
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const stops = Array.isArray(config.stopSequences) ? config.stopSequences : [];
  const answer = answerPrompt(ctx.model, prompt, {
    maxTokens: typeof config.maxOutputTokens === "number" ? config.maxOutputTokens : undefined,
    stops: stops.filter((stop): stop is string => typeof stop === "string"),
  });
  return { answer, usageMetadata: usageMetadata(prompt, answer, ctx.model) };
}

// Thinking variants spend tokens on reasoning that the answer does not show.
function usageMetadata(prompt: Prompt, answer: Answer, model: string) {
  const thoughts = model.includes("thinking")
    ? 32 + answer.tokens * 3 + Math.floor(hashUnit(model, prompt.all, "thoughts") * 64)
    : 0;
  return {
    promptTokenCount: prompt.tokens,
    candidatesTokenCount: answer.tokens,
    totalTokenCount: prompt.tokens + answer.tokens + thoughts,
    thoughtsTokenCount: thoughts,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt.tokens }],
  };
}

function finishReason(answer: Answer): string {
  return answer.finish === "length" ? "MAX_TOKENS" : "STOP";
}

/** The vendor's whole answer; the envelope puts `usageMetadata` beside `data`. */
export function nativeReply(body: Body, ctx: TextContext) {
  const { answer, usageMetadata } = nativeAnswer(body, ctx);
  const candidate = {
    content: { role: "model", parts: [{ text: answer.text }] },
    finishReason: finishReason(answer),
    index: 0,
    safetyRatings: SAFETY_RATINGS,
  };
  return {
    data: { candidates: [candidate], promptFeedback: { safetyRatings: SAFETY_RATINGS } },
    usageMetadata,
  };
}

/**
 * `streamGenerateContent`: one chunk per piece, the last with the finish reason and usage; as
 * SSE with `alt=sse`, else one JSON array written in parts.
 */
export function nativeStream(body: Body, ctx: TextContext, sse: boolean): TextStream {
  const { answer, usageMetadata } = nativeAnswer(body, ctx);
  const pieces = streamPieces(answer.text, ctx.id);
  const objects = pieces.map((text, i) => {
    const candidate = { content: { role: "model", parts: [{ text }] }, index: 0 };
    if (i < pieces.length - 1) return { candidates: [candidate] };
    const finish = { finishReason: finishReason(answer), safetyRatings: SAFETY_RATINGS };
    return { candidates: [{ ...candidate, ...finish }], usageMetadata };
  });
  if (sse) return { contentType: SSE_TYPE, chunks: objects.map((object) => sseEvent(object)) };
  const chunks = objects.map((object, i) => `${i === 0 ? "[" : ",\r\n"}${JSON.stringify(object)}`);
  chunks.push("]");
  return { contentType: "application/json; charset=utf-8", chunks };
}
