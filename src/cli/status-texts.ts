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

/**
 * Per answer: its label with the format, finish reason and usage, then the text in full, the
 * tools it asks for and a refusal, indented below.
 */
export function textLines(texts: readonly TextSummary[], limit = 20): string[] {
  if (texts.length === 0) return [];
  const lines = ["  text answers:"];
  for (const text of texts.slice(0, limit)) {
    const details = [
      text.format,
      text.choices > 1 ? `${text.choices} choices` : undefined,
      text.streamed ? "streamed" : undefined,
      `finish ${text.finish_reason ?? "unknown"}`,
      text.usage === null ? undefined : usageText(text.usage),
    ].filter((part) => part !== undefined);
    lines.push(`    ${text.label} (${details.join("; ")}):`);
    for (const call of text.tool_calls) lines.push(`      ${callText(call)}`);
    if (text.refusal !== null)
      lines.push(`      refused${text.refusal === "" ? "" : `: ${text.refusal}`}`);
    if (text.text !== "" || (text.tool_calls.length === 0 && text.refusal === null))
      for (const line of text.text.split("\n")) lines.push(`      ${line}`.trimEnd());
  }
  if (texts.length > limit)
    lines.push(`    … and ${texts.length - limit} more (gwrun status --json has them all)`);
  return lines;
}

/** `asks for name({...})`; a call cut off shows the argument text that arrived. */
function callText(call: ToolCall): string {
  if (call.partial === true) {
    return `asks for ${call.name}(${call.raw_arguments ?? ""}… cut off by the token limit)`;
  }
  return `asks for ${call.name}(${JSON.stringify(call.arguments)})`;
}

/** The usage's numeric fields in the format's own names: `prompt_tokens 12, completion_tokens 30`. */
function usageText(usage: Record<string, unknown>): string {
  return Object.entries(usage)
    .filter(([, value]) => typeof value === "number")
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");
}
