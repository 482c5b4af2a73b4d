/**
 * Advice for the YAML mistakes a manifest's author makes most: a `${…}`, `{{…}}` or folder
 * name (`{name}`, `{date}`) left unquoted where YAML reads its brace as a map, a tab used for indentation, and a key or list
 * item indented to no column around it. The parsers' own words rarely point at the fix.
 */

/** Where the mistake is (0-based line and column) and what to do about it. */
export interface YamlHint {
  line: number;
  col: number;
  hint: string;
}

/** What the parsers said: the first error's place (0-based), and js-yaml's reason and line. */
export interface ParserReport {
  line: number;
  col: number;
  jsReason?: string;
  jsLine?: number;
}

/** The hint for a syntax error in `lines`, when it is one of the known traps. */
export function hintFor(lines: readonly string[], report: ParserReport): YamlHint | undefined {
  return (
    templateHint(lines, report) ??
    tabHint(lines, report) ??
    (report.jsReason?.startsWith("bad indentation") === true && report.jsLine !== undefined
      ? indentHint(lines, report.jsLine)
      : undefined)
  );
}

/**
 * A `${…}`, `{{…}}` or `{name}` at or before the error on its line, unquoted in flow or as a
 * whole value.
 */
function templateHint(lines: readonly string[], report: ParserReport): YamlHint | undefined {
  const text = lines[report.line] ?? "";
  let trap: { start: number; key: string | undefined; inFlow: boolean } | undefined;
  let quote: string | undefined;
  let depth = 0;
  let valueStart = firstContent(text);
  for (let i = 0; i < text.length && i <= report.col; i++) {
    const char = text[i] as string;
    if (quote !== undefined) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote && text[i + 1] === "'" && quote === "'") i++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "#" && (i === 0 || text[i - 1] === " ")) break;
    const templateEnd = templateEndAt(text, i);
    if (templateEnd !== undefined) {
      if (valueStart !== undefined && (depth > 0 || i === valueStart)) {
        trap = { start: valueStart, key: keyBefore(text, valueStart), inFlow: depth > 0 };
      }
      i = templateEnd - 1;
      continue;
    }
    if (i === valueStart && (char === '"' || char === "'")) quote = char;
    else if (char === "{" || char === "[") depth++;
    else if (char === "}" || char === "]") depth--;
    if (char === "{" || char === "[" || char === ",") valueStart = firstContent(text, i + 1);
    else if ((char === ":" || char === "-") && /\s/.test(text[i + 1] ?? " ")) {
      valueStart = firstContent(text, i + 1);
    }
  }
  if (trap === undefined) return undefined;
  const value = valueText(text, trap.start, trap.inFlow);
  const quoted = value.includes('"') ? `'${value}'` : `"${value}"`;
  const example = trap.key === undefined ? quoted : `${trap.key}: ${quoted}`;
  return {
    line: report.line,
    col: trap.start,
    hint: `quote the value, e.g. ${example} (unquoted, YAML reads its "{" as the start of a map)`,
  };
}

/**
 * Index just past a `${…}` or `{{…}}` starting at `start` (the line's end if it is not closed),
 * or a folder name such as `{name}` (a word in one brace: a map would have a colon or spaces);
 * undefined when none starts there.
 */
function templateEndAt(text: string, start: number): number | undefined {
  if (text.startsWith("${", start) || text.startsWith("{{", start)) {
    const close = text.startsWith("{{", start) ? "}}" : "}";
    const end = text.indexOf(close, start + 2);
    return end === -1 ? text.length : end + close.length;
  }
  const folderName = /^\{[A-Za-z_]\w*\}/.exec(text.slice(start));
  return folderName === null ? undefined : start + folderName[0].length;
}

/** The plain value starting at `start`: to the end of its flow item, or of the line. */
function valueText(text: string, start: number, inFlow: boolean): string {
  let end = start;
  while (end < text.length) {
    const templateEnd = templateEndAt(text, end);
    if (templateEnd !== undefined) {
      end = templateEnd;
      continue;
    }
    const char = text[end] as string;
    if (inFlow && (char === "," || char === "]" || char === "}")) break;
    if (char === "#" && text[end - 1] === " ") break;
    end++;
  }
  return text.slice(start, end).trim();
}

function keyBefore(text: string, valueStart: number): string | undefined {
  return /([\w.-]+|"[^"]*"|'[^']*')\s*:\s*$/.exec(text.slice(0, valueStart))?.[1];
}

function firstContent(text: string, from = 0): number | undefined {
  for (let i = from; i < text.length; i++) if (text[i] !== " ") return i;
  return undefined;
}

/** A tab in the indentation of the line a parser named. */
function tabHint(lines: readonly string[], report: ParserReport): YamlHint | undefined {
  const named = report.jsReason?.includes("tab") === true ? report.jsLine : undefined;
  for (const line of [named, report.line]) {
    if (line === undefined) continue;
    const indent = /^[ \t]*/.exec(lines[line] ?? "")?.[0] ?? "";
    const tab = indent.indexOf("\t");
    if (tab !== -1) {
      return {
        line,
        col: tab,
        hint: `line ${line + 1} is indented with a tab: YAML indents with spaces only`,
      };
    }
  }
  return undefined;
}

/** A list item's line; the match runs to where the item's content starts. */
export const ITEM = /^(\s*)-(\s+|$)/;

/** Spaces before a line's content. */
export function indentOf(text: string): number {
  return /^ */.exec(text)?.[0].length ?? 0;
}

/** Whether a line holds more than blanks and a comment. */
export function isContent(text: string): boolean {
  const trimmed = text.trim();
  return trimmed !== "" && !trimmed.startsWith("#");
}

/**
 * The columns open at `at`, looking up: each line less indented than all below it opens a
 * block, whose items (for a `- ` line) or keys (otherwise) a sibling line must line up with.
 */
function openColumns(lines: readonly string[], at: number, item: boolean): number[] {
  const columns: number[] = [];
  let deepest = Number.POSITIVE_INFINITY;
  for (let i = at - 1; i >= 0 && deepest > 0; i--) {
    const text = lines[i] as string;
    if (!isContent(text) || indentOf(text) >= deepest) continue;
    deepest = indentOf(text);
    const dash = ITEM.exec(text);
    if (dash === null) {
      if (!item) columns.push(deepest);
    } else if (item) columns.push(deepest);
    else if (/^[\w"'.-][^#]*:(\s|$)/.test(text.slice(dash[0].length))) {
      columns.push(dash[0].length);
    }
  }
  return columns;
}

/** A key or list item at a column no sibling uses; names the nearest column that fits. */
function indentHint(lines: readonly string[], at: number): YamlHint | undefined {
  const text = lines[at];
  if (text === undefined || !isContent(text)) return undefined;
  const indent = indentOf(text);
  const item = ITEM.test(text);
  const columns = openColumns(lines, at, item);
  const what = item ? "list item" : "key";
  const place = { line: at, col: indent };
  if (columns.includes(indent) || columns.length === 0) {
    return {
      ...place,
      hint: `check the indentation of line ${at + 1}: the keys of one map, and the items of one list, start at the same column`,
    };
  }
  // The nearest column; on a tie the deeper one, as the line most likely continues its block.
  const expected = columns.reduce((best, column) =>
    Math.abs(column - indent) < Math.abs(best - indent) ||
    (Math.abs(column - indent) === Math.abs(best - indent) && column > best)
      ? column
      : best,
  );
  const how = indent < expected ? "outdented" : "indented too far";
  return {
    ...place,
    hint: `line ${at + 1} is ${how}: this ${what} starts at column ${indent + 1}, the ${what}s before it at column ${expected + 1}`,
  };
}
