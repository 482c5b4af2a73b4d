import type { LineCounter } from "yaml";

/** A problem found in a manifest, at a place in its text. */
export interface Diagnostic {
  severity: "error" | "warning";
  file: string;
  /** 1-based line and column. */
  line: number;
  col: number;
  message: string;
  /** Stable name of the broken rule, e.g. "unknown-field", "enum", "cycle". */
  rule: string;
  /** What to do about it, when the fix is not plain from the message (shown after the frame). */
  hint?: string;
  /** The text of its file when that is not the manifest (data, prompt or prices), for the frame. */
  text?: string;
}

/** A place in the manifest text: a character offset and how many characters it spans. */
export interface Span {
  offset: number;
  length: number;
}

export function diagnosticAt(
  file: string,
  lineCounter: LineCounter,
  span: Span,
  rule: string,
  message: string,
  severity: Diagnostic["severity"] = "error",
  hint?: string,
): Diagnostic {
  const { line, col } = lineCounter.linePos(span.offset);
  const diagnostic: Diagnostic = { severity, file, line, col, message, rule };
  if (hint !== undefined) diagnostic.hint = hint;
  return diagnostic;
}

/** 1-based line and column of character `offset` in `text`. */
export function positionIn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
    line++;
    start = at + 1;
  }
  return { line, col: offset - start + 1 };
}

/**
 * A diagnostic in a file the manifest names (a data or prompt file). Its text rides along,
 * unlisted, so the code frame shows that file and JSON output stays small.
 */
export function diagnosticIn(
  file: string,
  text: string,
  position: { line: number; col: number },
  rule: string,
  message: string,
  severity: Diagnostic["severity"] = "error",
): Diagnostic {
  return framedBy({ severity, file, ...position, message, rule }, text);
}

/** `diagnostic` framed by the text of its own file, which `--json` leaves out (it names the file). */
export function framedBy(diagnostic: Diagnostic, text: string): Diagnostic {
  const framed = { ...diagnostic };
  Object.defineProperty(framed, "text", { value: text, enumerable: false });
  return framed;
}

/** Sorts by position and drops exact repeats (the same rule broken by many expansions). */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  const unique: Diagnostic[] = [];
  for (const diagnostic of diagnostics) {
    const id = `${diagnostic.file}:${diagnostic.line}:${diagnostic.col}:${diagnostic.rule}:${diagnostic.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    unique.push(diagnostic);
  }
  return unique.sort(
    (a, b) =>
      a.file.localeCompare(b.file) ||
      a.line - b.line ||
      a.col - b.col ||
      a.rule.localeCompare(b.rule),
  );
}

const SECRET_LINE = /^(\s*(?:-\s+)?["']?api_key["']?\s*:\s*)(.*)$/;
/** `api_key: value` inside a flow mapping (`gateway: { api_key: ... }`). */
const SECRET_IN_FLOW = /(["']?api_key["']?\s*:\s*)("[^"]*"|'[^']*'|[^,}\]\s]+)/g;

/**
 * `file:LINE:COL  message  [rule]` followed by a short code frame of the manifest text and
 * the hint, if any.
 * A line that sets `api_key` is shown with its value masked.
 */
export function formatDiagnostic(
  diagnostic: Diagnostic,
  text: string | undefined,
  color = false,
): string {
  const { file, line, col, message, rule, severity } = diagnostic;
  const paint = (code: number, value: string) =>
    color ? `\u001b[${code}m${value}\u001b[0m` : value;
  const label = severity === "warning" ? paint(33, "warning") : paint(31, "error");
  const head = `${file}:${line}:${col}  ${label} ${message}  ${paint(2, `[${rule}]`)}`;
  // A diagnostic in a data, prompt or prices file frames that file's text.
  const shown = diagnostic.text ?? text;
  const frame = shown === undefined ? "" : `\n${codeFrame(shown, line, col)}`;
  const hint = diagnostic.hint === undefined ? "" : `\n  ${paint(36, "hint:")} ${diagnostic.hint}`;
  return `${head}${frame}${hint}`;
}

// The lines of the text framed last: a manifest's diagnostics are framed one after another.
let framed: { text: string; lines: string[] } | undefined;

function codeFrame(text: string, line: number, col: number): string {
  if (framed?.text !== text) framed = { text, lines: text.split(/\r?\n/) };
  const { lines } = framed;
  const first = Math.max(1, line - 1);
  const last = Math.min(lines.length, line + 1);
  const width = String(last).length;
  const out: string[] = [];
  for (let number = first; number <= last; number++) {
    const source = (lines[number - 1] ?? "")
      .replace(SECRET_LINE, "$1***")
      .replace(SECRET_IN_FLOW, "$1***");
    const marker = number === line ? ">" : " ";
    out.push(`  ${marker} ${String(number).padStart(width)} | ${source}`);
    if (number === line)
      out.push(`    ${" ".repeat(width)} | ${" ".repeat(Math.max(0, col - 1))}^`);
  }
  return out.join("\n");
}
