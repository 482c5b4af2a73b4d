import path from "node:path";
import { isoTime } from "../core/clock.js";
import type { FileWrites } from "../core/file-writes.js";
import { sha256 } from "../core/hash.js";
import { partialDir, sidecarPath, writeWhole } from "../core/output-files.js";
import { redactDataUris } from "../core/values.js";
import type { GatewayClient, TextAnswer, TextFormat } from "../gateway/index.js";
import { type Store, type TaskRow, type TextAnswerRow, variablesOf } from "../store/index.js";
import { freeOutputPath } from "./output-names.js";

const FORMATS: Readonly<Record<string, TextFormat>> = {
  "text-chat": "chat",
  "text-responses": "responses",
  "text-messages": "messages",
  "text-native": "native",
};

export interface TextTaskDeps {
  client: GatewayClient;
  /** Makes the call under the run's pace and retry policy (see `pacedCall`). */
  paced: <T>(call: () => Promise<T>) => Promise<T>;
  /** Told the characters received so far while a streamed answer arrives. */
  onProgress: (chars: number) => void;
  outputDir: string;
  /** Who holds a file name already (`freeOutputPath`). */
  store: Pick<Store, "outputAt">;
  /** Where the answer's files are written. */
  files: FileWrites;
  /** The time, ms: the record says when the call was sent and answered. */
  now(): number;
  /** What an answer of this usage costs (the manifest's per-token price), null when unknown. */
  costOf(usage: TextAnswer["usage"]): number | null;
}

export interface WrittenFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface TextTaskResult {
  format: TextFormat;
  streamed: boolean;
  answer: TextAnswer;
  /** One `.txt` per choice: `<label>.txt`, or `<label>-<n>.txt` when chat's `n` asked for several. */
  files: WrittenFile[];
  cost: number | null;
}

/**
 * A text task is one synchronous call: each choice's text is written as `<label>.txt`, and the
 * whole answer (finish reason, usage, tool calls, refusal, commentary, the vendor response) beside the
 * first as `<label>.json` (a name another output holds gets a version: `freeOutputPath`).
 * A refusal without text is written as the `.txt`, so the file says why there is no answer.
 */
export async function callTextTask(row: TaskRow, deps: TextTaskDeps): Promise<TextTaskResult> {
  const tempDir = partialDir(deps.outputDir);
  const format = FORMATS[row.family ?? ""] ?? formatOf(row.endpoint);
  const body = JSON.parse(row.request) as Record<string, unknown>;
  const streamed = wantsStream(format, body);
  // Native calls carry the model and the method in the path.
  const { model, stream: _stream, ...rest } = body;
  const requestPath =
    format === "native"
      ? `/v1beta/models/${encodeURIComponent(String(model))}:${streamed ? "streamGenerateContent" : "generateContent"}`
      : row.endpoint;
  const sentAt = deps.now();
  const answer = await deps.paced(() => {
    // A retried stream starts over.
    let chars = 0;
    return deps.client.callText(format, requestPath, format === "native" ? rest : body, {
      onText: (delta) => {
        chars += delta.length;
        deps.onProgress(chars);
      },
    });
  });
  const answeredAt = deps.now();
  const cost = deps.costOf(answer.usage);
  const texts = answer.choices.length > 0 ? answer.choices : [answer.text];
  const files: WrittenFile[] = [];
  for (const [index, choice] of writtenTexts(texts, answer.refusal).entries()) {
    const text = choice.endsWith("\n") ? choice : `${choice}\n`;
    const hash = sha256(text);
    const file = await freeOutputPath(deps.store, {
      outputDir: deps.outputDir,
      jobId: row.job_id,
      label: row.label,
      key: row.key,
      index,
      count: texts.length,
      contentType: "text/plain",
    });
    await writeWhole(file, text, tempDir, deps.files);
    files.push({ path: file, bytes: Buffer.byteLength(text), sha256: hash });
  }
  // As a media output's sidecar says it (provenance.ts), and then the answer.
  const record = {
    job: row.job_id,
    label: row.label,
    key: row.key,
    run: row.paid_run ?? row.run_id,
    ...variablesOf(row),
    format,
    endpoint: requestPath,
    request: redactDataUris(body),
    cost,
    submitted_at: isoTime(sentAt),
    completed_at: isoTime(answeredAt),
    streamed,
    text: answer.text,
    choices: texts,
    finish_reason: answer.finishReason,
    refusal: answer.refusal,
    // Kept beside the answer, not in it: the .txt and {{input.text}} hold the final answer only.
    ...(answer.commentary === undefined ? {} : { commentary: answer.commentary }),
    usage: answer.usage,
    tool_calls: answer.toolCalls,
    response: answer.raw,
  };
  const first = files[0]?.path ?? path.join(deps.outputDir, row.job_id, `${row.label}.txt`);
  const beside = sidecarPath(first, { idx: 0, count: texts.length, contentType: "text/plain" });
  await writeWhole(beside as string, `${JSON.stringify(record, null, 2)}\n`, tempDir, deps.files);
  return { format, streamed, answer, files, cost };
}

/** The answer as the store keeps it. */
export function answerRow(result: TextTaskResult): Omit<TextAnswerRow, "job_key" | "answered_at"> {
  const { answer } = result;
  return {
    format: result.format,
    model: modelOf(answer.raw),
    text: answer.text,
    choices: result.files.length,
    finish_reason: answer.finishReason,
    usage: answer.usage === null ? null : JSON.stringify(answer.usage),
    tool_calls: JSON.stringify(answer.toolCalls),
    refusal: answer.refusal,
    streamed: result.streamed ? 1 : 0,
  };
}

/** Each choice's file text: the first is the refusal when the model refused without a word of text. */
function writtenTexts(texts: readonly string[], refusal: string | null): string[] {
  return texts.map((text, index) =>
    index === 0 && text === "" && refusal !== null ? refusal : text,
  );
}

function wantsStream(format: TextFormat, body: Record<string, unknown>): boolean {
  return format === "chat" ? body.stream !== false : body.stream === true;
}

function modelOf(raw: unknown): string | null {
  if (raw === null || typeof raw !== "object") return null;
  const { model, modelVersion } = raw as { model?: unknown; modelVersion?: unknown };
  if (typeof model === "string") return model;
  return typeof modelVersion === "string" ? modelVersion : null;
}

function formatOf(endpoint: string): TextFormat {
  if (endpoint.includes("/chat/")) return "chat";
  if (endpoint.includes("/responses")) return "responses";
  if (endpoint.includes("/messages")) return "messages";
  return "native";
}
