/**
 * The text filter: text gwrun did not write (a gateway's errors, object storage's, a model's
 * answers, refusals and tool calls, a reviewer's notes, a data file's cells) is data, and
 * passes through here on its way out, filtered for where it goes:
 *
 * - a terminal or a log (`terminalText`): it cannot drive the terminal (change its title,
 *   plant a link, move the cursor, clear the screen) nor read other than it is;
 * - a file name (`fileNameText`): no folder separator, no character a file system refuses,
 *   nothing invisible or reordering (bidi controls, zero-width characters);
 * - a page (`htmlText`): escaped for HTML content and attribute values;
 * - a Slack message (`slackText`): `&`, `<` and `>` escaped, so no `<!channel>` or link works;
 * - a cell people read in a spreadsheet (`cellText`): nothing invisible or reordering.
 */

/**
 * Terminal escape sequences (7-bit and C1 forms): OSC and other string commands up to their
 * terminator (BEL or ST) or the end, CSI with its parameters, and two-character escapes.
 */
const ESCAPES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
  /(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b\[|\x9b)[\x20-\x3f]*[\x40-\x7e]?|\x1b[\x20-\x2f]*[\x30-\x7e]?/g;

/** Line breaks and tabs become spaces: one text stays one line of a log. */
const BREAKS = /[\t\n\v\f\r\u2028\u2029]+/g;

/** Other controls, and the bidirectional overrides that make text read other than it is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding controls is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Characters that show nothing or reorder what follows: bidi controls, zero-width ones. */
const INVISIBLES = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * `text` as one line safe to print: escape sequences and controls removed, line breaks and
 * tabs turned into spaces. A text of several lines is split first and each line passed here.
 */
export function terminalText(text: string): string {
  return text.replace(ESCAPES, "").replace(BREAKS, " ").replace(CONTROLS, "");
}

/** `text`'s lines (split at line feeds), each safe to print (see `terminalText`). */
export function terminalLines(text: string): string[] {
  // A sequence left open ends with its line: the lines after it are kept.
  return text.split("\n").map(terminalText);
}

/**
 * JSON text that prints safely too: JSON escapes C0 controls itself; C1 controls and
 * bidirectional overrides are written as `\u` escapes as well, which reads back the same.
 */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Text as (part of) a file name: nothing invisible or reordering, no folder separators, no
 * characters Windows refuses, no control characters, no leading dot (a hidden file) and no
 * trailing dot or space. May come back empty.
 */
export function fileNameText(text: string): string {
  return text
    .replace(INVISIBLES, "")
    .replace(/[/\\:*?"<>|\p{Cc}]+/gu, "-")
    .replace(/\s+/g, "-")
    .replace(/^[.-]+|[.-]+$/g, "");
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text safe in HTML content and attribute values. */
export function htmlText(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] as string);
}

/**
 * Text in a Slack message: `&`, `<` and `>` escaped as Slack asks, so text from a gateway
 * cannot mention `<!channel>` or make a `<url|label>` link; and one line a terminal could show.
 */
export function slackText(text: string): string {
  return text.replace(INVISIBLES, "").replace(/[&<>]/g, (char) => HTML_ESCAPES[char] as string);
}

/** Text in a cell people read (review.csv): nothing invisible or reordering. */
export function cellText(text: string): string {
  return text.replace(INVISIBLES, "");
}
