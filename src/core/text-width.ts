import stringWidth from "string-width";

/**
 * Text measured as a terminal shows it: a CJK character takes two columns, an emoji with its
 * modifiers two, a combining mark none. Text is cut between graphemes, never inside one.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** The columns `text` takes on a terminal (escape sequences take none). */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** The longest start of `text` (whole graphemes) that fits in `width` columns. */
function fitting(text: string, width: number): string {
  let used = 0;
  let end = 0;
  for (const { segment, index } of graphemes.segment(text)) {
    const cell = stringWidth(segment);
    if (used + cell > width) return text.slice(0, index);
    used += cell;
    end = index + segment.length;
  }
  return text.slice(0, end);
}

/** Cuts `text` to `width` columns, marking a cut with "…". */
export function cutToWidth(text: string, width: number): string {
  if (width <= 0) return "";
  if (stringWidth(text) <= width) return text;
  return `${fitting(text, width - 1)}…`;
}

/** `text` padded with spaces on the right to `width` columns (never cut). */
export function padEndToWidth(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - stringWidth(text)));
}

/** `text` padded with spaces on the left to `width` columns (never cut). */
export function padStartToWidth(text: string, width: number): string {
  return " ".repeat(Math.max(0, width - stringWidth(text))) + text;
}

/**
 * `line` wrapped at spaces to lines of at most `width` columns, each line after the first
 * indented by `indent` spaces more than `line` is; a word wider than a line is cut between
 * graphemes.
 */
export function wrapToWidth(line: string, width: number, indent = 2): string[] {
  if (stringWidth(line) <= width) return [line];
  const lead = /^ */.exec(line)?.[0] ?? "";
  const next = " ".repeat(Math.min(lead.length + indent, Math.max(0, width - 10)));
  const lines: string[] = [];
  let current = lead;
  let start = true;
  for (const word of line.slice(lead.length).split(/ +/)) {
    const joined = start ? `${current}${word}` : `${current} ${word}`;
    if (stringWidth(joined) <= width) {
      current = joined;
      start = false;
      continue;
    }
    if (!start) lines.push(current);
    // A word wider than a whole line is cut into pieces of the line's width.
    let rest = word;
    current = start ? current : next;
    while (stringWidth(current + rest) > width) {
      const piece = fitting(rest, width - stringWidth(current));
      if (piece === "") break;
      lines.push(current + piece);
      rest = rest.slice(piece.length);
      current = next;
    }
    current += rest;
    start = false;
  }
  lines.push(current);
  return lines;
}
