import { type Block, planMessages } from "./messages.js";
import { type Body, SSE_TYPE, type TextContext, type TextStream } from "./types.js";
import { jsonPieces, quirksOf, sseWriter, streamPieces } from "./wire.js";

/**
 * The messages stream as the vendor sends it: `message_start` (input usage, one output token),
 * a `ping`, per block `content_block_start`, deltas (`text_delta`, or the tool input as
 * `input_json_delta` fragments that parse only once joined) and `content_block_stop`, then
 * `message_delta` with the stop reason (and `stop_details` of a refusal) and the output usage,
 * and `message_stop`. Now and then more pings and empty text deltas come between.
 */
export function messagesStream(body: Body, ctx: TextContext): TextStream {
  const { reply, cutInputs } = planMessages(body, ctx);
  const quirks = quirksOf(ctx.id);
  const sse = sseWriter(quirks);
  const usage = reply.usage as { input_tokens: number; output_tokens: number };
  const event = (type: string, fields: object = {}) => sse({ type, ...fields }, type);
  const { stop_details: _details, ...opening } = reply;
  const start = { ...opening, content: [], stop_reason: null, stop_sequence: null };
  const chunks = [
    event("message_start", { message: { ...start, usage: { ...usage, output_tokens: 1 } } }),
  ];
  (reply.content as Block[]).forEach((block, index) => {
    const empty = block.type === "text" ? { ...block, text: "" } : { ...block, input: {} };
    chunks.push(event("content_block_start", { index, content_block: empty }));
    if (index === 0) chunks.push(event("ping"));
    const json = cutInputs.get(index) ?? JSON.stringify(block.input);
    const deltas =
      block.type === "text"
        ? streamPieces(String(block.text), `${ctx.id}:${index}`, quirks.emptyDeltas)
            .filter((text) => text !== "" || quirks.emptyDeltas)
            .map((text) => ({ type: "text_delta", text }))
        : jsonPieces(json).map((partial_json) => ({ type: "input_json_delta", partial_json }));
    deltas.forEach((delta, at) => {
      chunks.push(event("content_block_delta", { index, delta }));
      if (quirks.extraPings && at % 3 === 1) chunks.push(event("ping"));
    });
    chunks.push(event("content_block_stop", { index }));
  });
  const delta = {
    stop_reason: reply.stop_reason,
    stop_sequence: reply.stop_sequence,
    ...(reply.stop_details === undefined ? {} : { stop_details: reply.stop_details }),
  };
  chunks.push(event("message_delta", { delta, usage: { output_tokens: usage.output_tokens } }));
  chunks.push(event("message_stop"));
  return { contentType: SSE_TYPE, chunks, splitCharacters: quirks.splitCharacters };
}
