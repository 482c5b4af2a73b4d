import type { ToolCall } from "../gateway/index.js";
import type { Store, TextAnswerRow } from "../store/index.js";

/** A text job's stored answer, as `gwrun status` shows it. */
export interface TextSummary {
  label: string;
  format: string;
  model: string | null;
  /** The first choice's text, in full. */
  text: string;
  choices: number;
  finish_reason: string | null;
  usage: Record<string, unknown> | null;
  tool_calls: ToolCall[];
  /** What the model said in declining (`""` for no words); null when it answered. */
  refusal: string | null;
  streamed: boolean;
}

/** The stored answers of a run's text jobs. */
export async function textSummaries(store: Store, runId: number): Promise<TextSummary[]> {
  return (await store.textAnswersOf(runId)).map((row) => summarize(row));
}

function summarize(row: TextAnswerRow & { label: string }): TextSummary {
  return {
    label: row.label,
    format: row.format,
    model: row.model,
    text: row.text,
    choices: row.choices,
    finish_reason: row.finish_reason,
    usage: row.usage === null ? null : (JSON.parse(row.usage) as Record<string, unknown>),
    tool_calls: JSON.parse(row.tool_calls) as ToolCall[],
    refusal: row.refusal,
    streamed: row.streamed === 1,
  };
}
