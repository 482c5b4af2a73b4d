import { createHash } from "node:crypto";
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { canonicalJson } from "../core/hash.js";
import type { Family, RequestBody } from "../families/index.js";
import type { SimContext } from "./context.js";
import { countError } from "./counters.js";
import { readLink } from "./files.js";
import { sendJson } from "./http.js";
import { ESCAPE_ERROR_TAIL } from "./tasks.js";
import { replyText, streamText, streamWrites, type TextFormat, wantsStream } from "./text/index.js";
import { bytesSeed, judgeVerdict, type SeenPicture } from "./text/judge.js";

const FORMATS: Readonly<Record<string, TextFormat>> = {
  "text-chat": "chat",
  "text-responses": "responses",
  "text-messages": "messages",
  "text-native": "native",
};

const ID_PREFIX: Readonly<Record<TextFormat, string>> = {
  chat: "chatcmpl-",
  responses: "resp_",
  messages: "msg_",
  native: "",
};

/** Whether a family is one of the text wire formats. */
export function isTextFamily(family: Family): boolean {
  return family.id in FORMATS;
}

/**
 * A synchronous text call: the whole answer in the envelope, or a stream of vendor chunks.
 * `sse`: native's stream as SSE; `echo`: the credentials the call came with.
 */
export async function answerText(
  context: SimContext,
  res: ServerResponse,
  family: Family,
  body: RequestBody,
  call: { sse: boolean; echo: string | undefined },
): Promise<void> {
  const format = FORMATS[family.id] as TextFormat;
  const digest = createHash("sha256").update(canonicalJson(body)).digest("hex");
  const textContext = {
    id: `${ID_PREFIX[format]}${digest.slice(0, 24)}`,
    created: Math.floor(context.options.clock.now() / 1000),
    model: typeof body.model === "string" ? body.model : "unknown",
    // Text models decline what family A's safety filter rejects, and now and then anything.
    unsafeWord: context.options.unsafeWord,
    refuse: context.dice.roll("text-refusal", digest, context.options.faults.textRefusalRate),
    commentary: context.dice.roll("commentary", digest, context.options.faults.commentaryRate),
    verdict: judgeVerdict(
      format,
      body,
      (image) => seenPicture(context, image),
      context.options.judgeNoShare,
    ),
  };
  context.counters.text.calls += 1;
  if (!wantsStream(format, body)) {
    sendJson(res, 200, replyText(format, body, textContext));
    return;
  }
  context.counters.text.streams += 1;
  const stream = streamText(format, body, textContext, { sse: call.sse });
  res.writeHead(200, { "content-type": stream.contentType, "cache-control": "no-cache" });
  const breaks =
    stream.contentType.startsWith("text/event-stream") &&
    context.dice.roll("stream-error", digest, context.options.faults.streamErrorRate);
  const writes = streamWrites(stream);
  for (const [index, chunk] of writes.entries()) {
    if (res.destroyed) return;
    // After the first event: the answer has begun when it breaks.
    if (breaks && index === 1) {
      countError(context.counters, "stream_error");
      res.end(brokenStreamEvent(call.echo));
      return;
    }
    res.write(chunk);
    if (context.options.streamDelayMs > 0) await sleep(context.options.streamDelayMs);
  }
  res.end();
}

/** What the simulator knows of a picture: by its link, the seed and prompt it drew it from. */
function seenPicture(context: SimContext, image: { url: string } | { data: string }): SeenPicture {
  if ("data" in image) return { seed: bytesSeed(image.data), prompt: undefined };
  const name = /\/files\/([^/?#]+)$/.exec(image.url)?.[1];
  const link = name === undefined ? undefined : readLink(name);
  if (link === undefined) return { seed: bytesSeed(image.url), prompt: undefined };
  const seed = link.spec.seed.replace(/-\d+$/, "");
  return { seed: link.spec.seed, prompt: context.prompts.get(seed) };
}

/** The error event a broken stream ends with: markup, escapes and the caller's credentials. */
function brokenStreamEvent(echo: string | undefined): string {
  const sent = echo === undefined ? "" : ` (request sent with ${echo})`;
  const error = { type: "upstream_error", message: `stream broke${sent} ${ESCAPE_ERROR_TAIL}` };
  return `event: error\ndata: ${JSON.stringify({ type: "error", error })}\n\n`;
}
