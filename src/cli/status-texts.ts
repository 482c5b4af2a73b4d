import type { Store, TextAnswerRow } from "../store/index.js";

/** A text job's stored answer, as `gwrun status` shows it. */
export interface TextSummary {
  label: string;
  format: string;
  model: string | null;
  /** The first choice's text, shortened. */
  text: string;
  choices: number;
  finish_reason: string | null;
  usage: Record<string, unknown> | null;
  tool_calls: { id: string; name: string; arguments: Record<string, unknown> }[];
  streamed: boolean;
}

/** Characters of an answer's text shown by `gwrun status`. */
const TEXT_CHARS = 80;

/** The stored answers of a run's text jobs. */
export async function textSummaries(store: Store, runId: number): Promise<TextSummary[]> {
  return (await store.textAnswersOf(runId)).map((row) => summarize(row));
}

function summarize(row: TextAnswerRow & { label: string }): TextSummary {
  return {
    label: row.label,
    format: row.format,
    model: row.model,
    text: shorten(row.text.replace(/\s+/g, " ").trim(), TEXT_CHARS),
    choices: row.choices,
    finish_reason: row.finish_reason,
    usage: row.usage === null ? null : (JSON.parse(row.usage) as Record<string, unknown>),
    tool_calls: JSON.parse(row.tool_calls) as TextSummary["tool_calls"],
    streamed: row.streamed === 1,
  };
}

/** One line per answer: its text (or the tool it asks for), finish reason and usage. */
export function textLines(texts: readonly TextSummary[], limit = 20): string[] {
  if (texts.length === 0) return [];
  const lines = ["  text answers:"];
  for (const text of texts.slice(0, limit)) {
    const said =
      text.tool_calls.length > 0
        ? `asks for ${text.tool_calls.map((call) => `${call.name}(${shorten(JSON.stringify(call.arguments), 60)})`).join(", ")}`
        : JSON.stringify(text.text);
    const details = [
      text.format,
      text.choices > 1 ? `${text.choices} choices` : undefined,
      text.streamed ? "streamed" : undefined,
      `finish ${text.finish_reason ?? "unknown"}`,
      text.usage === null ? undefined : usageText(text.usage),
    ].filter((part) => part !== undefined);
    lines.push(`    ${text.label}: ${said} (${details.join("; ")})`);
  }
  if (texts.length > limit) lines.push(`    … and ${texts.length - limit} more`);
  return lines;
}

/** The usage's numeric fields in the format's own names: `prompt_tokens 12, completion_tokens 30`. */
function usageText(usage: Record<string, unknown>): string {
  return Object.entries(usage)
    .filter(([, value]) => typeof value === "number")
    .map(([name, value]) => `${name} ${value}`)
    .join(", ");
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
