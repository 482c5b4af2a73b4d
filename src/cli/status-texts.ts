import type { TextSummary } from "../api/index.js";
import type { ToolCall } from "../gateway/index.js";

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
