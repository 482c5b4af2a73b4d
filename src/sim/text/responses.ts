import { hashUnit } from "../../core/random.js";
import { isRecord } from "../../core/values.js";
import {
  answerPrompt,
  countTokens,
  IMAGE_TOKENS,
  idSuffix,
  type Prompt,
  REFUSAL_TEXT,
  refuses,
} from "./answer.js";
import { toolTokens, turnsPrompt } from "./chat.js";
import { functionTools, planToolCalls } from "./tools.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { jsonPieces, quirksOf, sseWriter, streamPieces } from "./wire.js";

/**
 * Responses (`/v1/responses`): a string or input items of text and image blocks, tools. The
 * answer is the vendor's Response object: `output` items (reasoning for thinking models, a web
 * or file search call for those tools, `function_call` items, or a `message` with `output_text`
 * or `refusal` content), `status` with `incomplete_details` when the token limit cut it, and
 * `usage` in `input_tokens` and `output_tokens`. (The contract shows a chat-like `choices`
 * reply instead; the vendor's object is what servers send.)
 */

type Item = Record<string, unknown>;

/** The commentary message a two-phase answer opens with. */
export const COMMENTARY_TEXT = "I will read the request and answer it with links.";

function responsesPrompt(body: Body): Prompt {
  const input = body.input;
  if (typeof input === "string") {
    return turnsPrompt([{ role: "user", content: input }], toolTokens(body));
  }
  let images = 0;
  const turns = (input as Item[]).map((item) => {
    const blocks = Array.isArray(item.content) ? item.content.filter(isRecord) : [];
    images += blocks.filter((block) => block.type === "input_image").length;
    const texts = blocks.filter((block) => block.type === "input_text").map((block) => block.text);
    return { role: String(item.role), content: texts.join("\n") };
  });
  return turnsPrompt(turns, images * IMAGE_TOKENS + toolTokens(body));
}

function toolTypes(body: Body): Set<unknown> {
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  return new Set(tools.map((tool) => tool.type));
}

/** The `data` of a non-streamed responses call: the vendor's Response object. */
export function responsesReply(body: Body, ctx: TextContext): Record<string, unknown> {
  const prompt = responsesPrompt(body);
  const id = (kind: string, n = 0) => `${kind}_${idSuffix(`${ctx.id}:${kind}:${n}`)}`;
  const output: Item[] = [];
  const thinking = ctx.model.includes("thinking");
  const reasoningTokens = thinking ? 16 + Math.floor(hashUnit(ctx.id, "reasoning") * 48) : 0;
  if (thinking) output.push({ id: id("rs"), type: "reasoning", summary: [] });
  const types = toolTypes(body);
  const query = prompt.lastUser;
  if (types.has("web_search")) {
    const action = { type: "search", query };
    output.push({ id: id("ws"), type: "web_search_call", status: "completed", action });
  }
  if (types.has("file_search")) {
    const call = { status: "completed", queries: [query], results: null };
    output.push({ id: id("fs"), type: "file_search_call", ...call });
  }
  let tokens = 0;
  let incomplete = false;
  const calls = planToolCalls(functionTools(body.tools), prompt.lastUser);
  for (const [i, call] of calls.entries()) {
    const args = JSON.stringify(call.input);
    tokens += countTokens(call.name) + countTokens(args);
    output.push({
      id: id("fc", i),
      type: "function_call",
      status: "completed",
      call_id: `call_${idSuffix(`${ctx.id}:${call.name}`)}`,
      name: call.name,
      arguments: args,
    });
  }
  if (calls.length === 0) {
    const refused = refuses(prompt, ctx);
    const maxTokens = typeof body.max_tokens === "number" ? body.max_tokens : undefined;
    const answer = answerPrompt(ctx.model, prompt, { maxTokens, fixed: ctx.verdict });
    incomplete = !refused && answer.finish === "length";
    tokens = refused ? countTokens(REFUSAL_TEXT) : answer.tokens;
    const part = refused
      ? { type: "refusal", refusal: REFUSAL_TEXT }
      : { type: "output_text", text: answer.text, annotations: [] };
    const status = incomplete ? "incomplete" : "completed";
    const message = { type: "message", status, role: "assistant" };
    if (ctx.commentary === true && !refused) {
      // What the model says it is about to do, then the answer: two messages told by `phase`.
      const note = { type: "output_text", text: COMMENTARY_TEXT, annotations: [] };
      tokens += countTokens(COMMENTARY_TEXT);
      output.push({
        id: id("msg", 1),
        ...message,
        status: "completed",
        phase: "commentary",
        content: [note],
      });
      output.push({ id: id("msg"), ...message, phase: "final_answer", content: [part] });
    } else {
      output.push({ id: id("msg"), ...message, content: [part] });
    }
  }
  return {
    id: ctx.id,
    object: "response",
    created_at: ctx.created,
    status: incomplete ? "incomplete" : "completed",
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    model: ctx.model,
    output,
    parallel_tool_calls: true,
    usage: {
      input_tokens: prompt.tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: tokens + reasoningTokens,
      output_tokens_details: { reasoning_tokens: reasoningTokens },
      total_tokens: prompt.tokens + tokens + reasoningTokens,
    },
  };
}

/**
 * A responses stream as the vendor sends it: `response.created`, `response.in_progress`, then
 * per output item `response.output_item.added`, its content part and text deltas (or function
 * argument deltas), the `.done` events, and `response.completed` (or `response.incomplete`)
 * with the whole Response object. Every event carries a `sequence_number`.
 */
export function responsesStream(body: Body, ctx: TextContext): TextStream {
  const reply = responsesReply(body, ctx);
  const quirks = quirksOf(ctx.id);
  const sse = sseWriter(quirks);
  let sequence = 0;
  const chunks: string[] = [];
  const emit = (type: string, fields: object) =>
    chunks.push(sse({ type, sequence_number: sequence++, ...fields }, type));
  const opening = { ...reply, status: "in_progress", output: [], usage: null };
  emit("response.created", { response: opening });
  emit("response.in_progress", { response: opening });
  (reply.output as Item[]).forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      emit("response.output_item.added", {
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      const [part] = item.content as Item[];
      const where = { item_id, output_index, content_index: 0 };
      if (part?.type === "refusal") {
        emit("response.content_part.added", { ...where, part: { type: "refusal", refusal: "" } });
        for (const delta of streamPieces(String(part.refusal), `${ctx.id}:refusal`)) {
          emit("response.refusal.delta", { ...where, delta });
        }
        emit("response.refusal.done", { ...where, refusal: part.refusal });
      } else if (part !== undefined) {
        const empty = { type: "output_text", text: "", annotations: [] };
        emit("response.content_part.added", { ...where, part: empty });
        for (const delta of streamPieces(String(part.text), ctx.id, quirks.emptyDeltas)) {
          if (delta !== "" || quirks.emptyDeltas) {
            emit("response.output_text.delta", { ...where, delta, logprobs: [] });
          }
        }
        emit("response.output_text.done", { ...where, text: part.text, logprobs: [] });
      }
      emit("response.content_part.done", { ...where, part });
    } else if (item.type === "function_call") {
      const opened = { ...item, status: "in_progress", arguments: "" };
      emit("response.output_item.added", { output_index, item: opened });
      for (const delta of jsonPieces(String(item.arguments)).slice(1)) {
        emit("response.function_call_arguments.delta", { item_id, output_index, delta });
      }
      const args = item.arguments;
      emit("response.function_call_arguments.done", { item_id, output_index, arguments: args });
    } else {
      emit("response.output_item.added", { output_index, item });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const last = reply.status === "incomplete" ? "response.incomplete" : "response.completed";
  emit(last, { response: reply });
  return { contentType: SSE_TYPE, chunks, splitCharacters: quirks.splitCharacters };
}
