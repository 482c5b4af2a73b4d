import path from "node:path";
import type { Clock } from "../core/clock.js";
import { sha256 } from "../core/hash.js";
import type { Random } from "../core/random.js";
import {
  type GatewayClient,
  type RetryPolicy,
  type TextFormat,
  withRetry,
} from "../gateway/index.js";
import type { JobRow } from "../store/index.js";
import { writeWhole } from "./files.js";

const FORMATS: Readonly<Record<string, TextFormat>> = {
  "text-chat": "chat",
  "text-responses": "responses",
  "text-messages": "messages",
  "text-native": "native",
};

export interface TextJobDeps {
  client: GatewayClient;
  retry: RetryPolicy;
  clock: Clock;
  random: Random;
  outputDir: string;
  tempDir: string;
}

/**
 * A text job is one synchronous call: the answer is written as `<label>.txt`, and the whole
 * answer (finish reason, usage, tool calls, the vendor response) as `<label>.json`.
 */
export async function callTextJob(
  row: JobRow,
  deps: TextJobDeps,
): Promise<{ path: string; bytes: number; sha256: string }> {
  const format = FORMATS[row.family ?? ""] ?? formatOf(row.endpoint);
  const body = JSON.parse(row.request) as Record<string, unknown>;
  // Native calls carry the model and the method in the path.
  const { model, stream, ...rest } = body;
  const requestPath =
    format === "native"
      ? `/v1beta/models/${encodeURIComponent(String(model))}:${stream === true ? "streamGenerateContent" : "generateContent"}`
      : row.endpoint;
  const answer = await withRetry(
    () => deps.client.callText(format, requestPath, format === "native" ? rest : body),
    deps.retry,
    {
      clock: deps.clock,
      random: deps.random,
    },
  );
  const file = path.join(deps.outputDir, row.job_id, `${row.label}.txt`);
  const text = answer.text.endsWith("\n") ? answer.text : `${answer.text}\n`;
  await writeWhole(file, text, deps.tempDir);
  const record = {
    finish_reason: answer.finishReason,
    usage: answer.usage,
    tool_calls: answer.toolCalls,
    response: answer.raw,
  };
  await writeWhole(
    path.join(deps.outputDir, row.job_id, `${row.label}.json`),
    `${JSON.stringify(record, null, 2)}\n`,
    deps.tempDir,
  );
  return { path: file, bytes: Buffer.byteLength(text), sha256: sha256(text) };
}

function formatOf(endpoint: string): TextFormat {
  if (endpoint.includes("/chat/")) return "chat";
  if (endpoint.includes("/responses")) return "responses";
  if (endpoint.includes("/messages")) return "messages";
  return "native";
}
