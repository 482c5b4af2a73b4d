import { hashUnit } from "../../core/random.js";
import { isRecord } from "../../core/values.js";
import { answerPrompt, countTokens, type Prompt, refuses } from "./answer.js";
import { planToolCalls, type ToolForce, type ToolSpec } from "./tools.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { quirksOf, sseWriter, streamPieces } from "./wire.js";

/**
 * Native content generation (`/v1beta/models/<model>:<method>`): contents of text parts,
 * `generationConfig.maxOutputTokens` (and `stopSequences`, the vendor's field; the spec shows
 * none), the vendor's `tools` of `functionDeclarations` and `toolConfig`, usage in
 * `usageMetadata`. A function call is a `functionCall` part (a name and an `args` object); a
 * prompt the model declines ends with `finishReason: SAFETY` and no content.
 */

type Part = Record<string, unknown>;

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
  const tools = body.tools === undefined ? 0 : countTokens(JSON.stringify(body.tools));
  return {
    all: turns.map((turn) => `${turn.role}: ${turn.text}`).join("\n"),
    lastUser: lastUser?.text ?? "",
    tokens: turns.reduce((sum, turn) => sum + countTokens(turn.text), 0) + tools,
  };
}

/** The functions of `tools: [{functionDeclarations: [{name, parameters}]}]`. */
function declaredFunctions(tools: unknown): ToolSpec[] {
  const list = Array.isArray(tools) ? tools.filter(isRecord) : [];
  return list.flatMap((tool) => {
    const declarations = Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : [];
    return declarations
      .filter(isRecord)
      .flatMap((fn) =>
        typeof fn.name === "string" ? [{ name: fn.name, schema: fn.parameters }] : [],
      );
  });
}

/** `toolConfig.functionCallingConfig`: mode ANY forces a call (one allowed name: that one), NONE forbids. */
function forceOf(body: Body): ToolForce {
  const config = isRecord(body.toolConfig) ? body.toolConfig.functionCallingConfig : undefined;
  if (!isRecord(config)) return undefined;
  if (config.mode === "NONE") return "none";
  if (config.mode !== "ANY") return undefined;
  const [only, ...more] = Array.isArray(config.allowedFunctionNames)
    ? config.allowedFunctionNames
    : [];
  return typeof only === "string" && more.length === 0 ? { name: only } : "any";
}

interface NativeAnswer {
  /** The answer's parts: text, or function calls; none when refused. */
  parts: Part[];
  /** A thought summary, sent only when `thinkingConfig.includeThoughts` asks for it. */
  thought: string | null;
  finishReason: string;
  usageMetadata: Record<string, unknown>;
}

function nativeAnswer(body: Body, ctx: TextContext): NativeAnswer {
  const prompt = nativePrompt(body);
  const config = isRecord(body.generationConfig) ? body.generationConfig : {};
  const stops = Array.isArray(config.stopSequences) ? config.stopSequences : [];
  const answer = answerPrompt(ctx.model, prompt, {
    maxTokens: typeof config.maxOutputTokens === "number" ? config.maxOutputTokens : undefined,
    stops: stops.filter((stop): stop is string => typeof stop === "string"),
    fixed: ctx.verdict,
  });
  const thinking = isRecord(config.thinkingConfig) ? config.thinkingConfig : {};
  const usage = (output: number) => usageMetadata(prompt, output, ctx.model);
  const thought =
    thinking.includeThoughts === true && ctx.model.includes("thinking")
      ? "Weighing what the prompt asks for before answering."
      : null;
  if (refuses(prompt, ctx)) {
    return { parts: [], thought: null, finishReason: "SAFETY", usageMetadata: usage(0) };
  }
  const calls = planToolCalls(declaredFunctions(body.tools), prompt.lastUser, forceOf(body));
  if (calls.length > 0) {
    const parts = calls.map((call) => ({ functionCall: { name: call.name, args: call.input } }));
    const tokens = calls.reduce(
      (sum, call) => sum + countTokens(call.name) + countTokens(JSON.stringify(call.input)),
      0,
    );
    return { parts, thought, finishReason: "STOP", usageMetadata: usage(tokens) };
  }
  const finishReason = answer.finish === "length" ? "MAX_TOKENS" : "STOP";
  return {
    parts: [{ text: answer.text }],
    thought,
    finishReason,
    usageMetadata: usage(answer.tokens),
  };
}

// Thinking variants spend tokens on reasoning that the answer does not show.
function usageMetadata(prompt: Prompt, output: number, model: string) {
  const thoughts = model.includes("thinking")
    ? 32 + output * 3 + Math.floor(hashUnit(model, prompt.all, "thoughts") * 64)
    : 0;
  return {
    promptTokenCount: prompt.tokens,
    candidatesTokenCount: output,
    totalTokenCount: prompt.tokens + output + thoughts,
    thoughtsTokenCount: thoughts,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt.tokens }],
  };
}

/** A candidate: its parts (a declined one has no content) and, when it ends, why. */
function candidate(parts: Part[] | undefined, finishReason?: string): Record<string, unknown> {
  const content = parts === undefined ? {} : { content: { role: "model", parts } };
  const blocked = finishReason === "SAFETY";
  const ratings = blocked
    ? SAFETY_RATINGS.map((rating, i) =>
        i === 3 ? { ...rating, probability: "HIGH", blocked } : rating,
      )
    : SAFETY_RATINGS;
  const end = finishReason === undefined ? {} : { finishReason, safetyRatings: ratings };
  return { ...content, index: 0, ...end };
}

/** The vendor's whole answer; the envelope puts `usageMetadata` beside `data`. */
export function nativeReply(body: Body, ctx: TextContext) {
  const answer = nativeAnswer(body, ctx);
  const thought = answer.thought === null ? [] : [{ text: answer.thought, thought: true }];
  const parts = answer.parts.length === 0 ? undefined : [...thought, ...answer.parts];
  return {
    data: {
      candidates: [candidate(parts, answer.finishReason)],
      promptFeedback: { safetyRatings: SAFETY_RATINGS },
      modelVersion: ctx.model,
      responseId: ctx.id,
    },
    usageMetadata: answer.usageMetadata,
  };
}

/**
 * `streamGenerateContent`: a chunk per text piece (function calls come whole, in one chunk),
 * the finish reason and usage on the last — or, now and then, on a chunk of their own whose
 * content has a role but no parts, as real servers send it. As SSE with `alt=sse`, else one
 * JSON array written in parts.
 */
export function nativeStream(body: Body, ctx: TextContext, sse: boolean): TextStream {
  const answer = nativeAnswer(body, ctx);
  const quirks = quirksOf(ctx.id);
  const [first] = answer.parts;
  const pieces: Part[][] =
    typeof first?.text === "string"
      ? streamPieces(first.text, ctx.id).map((text) => [{ text }])
      : answer.parts.length > 0
        ? [answer.parts]
        : [];
  if (answer.thought !== null) pieces.unshift([{ text: answer.thought, thought: true }]);
  const head = { modelVersion: ctx.model, responseId: ctx.id };
  const objects = pieces.map((parts) => ({ candidates: [candidate(parts)], ...head }));
  const ending = { usageMetadata: answer.usageMetadata, ...head };
  const last = objects.at(-1);
  if (last === undefined || answer.parts.length === 0 || quirks.partlessLastChunk) {
    const end = candidate(undefined, answer.finishReason);
    // A last chunk without parts: its content names the role only (a declined one has none).
    const closing = answer.parts.length === 0 ? end : { content: { role: "model" }, ...end };
    objects.push({ candidates: [closing], ...ending });
  } else {
    last.candidates = [candidate(pieces.at(-1), answer.finishReason)];
    Object.assign(last, ending);
  }
  if (sse) {
    const write = sseWriter(quirks);
    const chunks = objects.map((object) => write(object));
    return { contentType: SSE_TYPE, chunks, splitCharacters: quirks.splitCharacters };
  }
  const chunks = objects.map((object, i) => `${i === 0 ? "[" : ",\r\n"}${JSON.stringify(object)}`);
  chunks.push("]");
  return { contentType: "application/json; charset=utf-8", chunks, splitCharacters: false };
}
