/**
 * One record of CSV or TSV text read at an offset, as csv-parse reads it with the options of
 * `rows:` (RFC 4180 quotes, `""` for a quote inside them, no trimming, empty lines skipped, the
 * line break it meets first outside quotes ending every record): a data file's rows are held
 * as where each starts, and a row is read again when a job expands it.
 */

const QUOTE = 34; // "

/** Reads records one after another from `text`; `at` is where the next one is looked for. */
export class RecordReader {
  /** Where the next record is looked for (past a byte order mark at first). */
  at: number;
  /** The line break that ends records: "\r\n", "\n" or "\r", the first met outside quotes. */
  #lineBreak: string | undefined;

  constructor(
    readonly text: string,
    readonly delimiter: string,
  ) {
    this.at = text.startsWith("\uFEFF") ? 1 : 0;
  }

  /**
   * The next record's cells into `cells` (emptied first); returns where the record starts, or
   * -1 at the end of the text or where it is not RFC 4180 (which csv-parse refuses).
   */
  read(cells: string[]): number {
    const { text, delimiter } = this;
    const length = text.length;
    cells.length = 0;
    for (;;) {
      if (this.at >= length) return -1;
      const skip = this.#lineBreakAt(this.at);
      if (skip === 0) break;
      this.at += skip;
    }
    const start = this.at;
    let at = start;
    for (;;) {
      if (text.charCodeAt(at) === QUOTE) {
        let value = "";
        let from = at + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote === -1) return -1;
          if (text.charCodeAt(quote + 1) === QUOTE) {
            value += text.slice(from, quote + 1);
            from = quote + 2;
            continue;
          }
          value += text.slice(from, quote);
          at = quote + 1;
          break;
        }
        cells.push(value);
      } else {
        let end = at;
        while (end < length && text[end] !== delimiter && this.#lineBreakAt(end) === 0) {
          if (text.charCodeAt(end) === QUOTE) return -1;
          end++;
        }
        cells.push(text.slice(at, end));
        at = end;
      }
      if (at >= length) {
        this.at = length;
        return start;
      }
      if (text[at] === delimiter) {
        at++;
        continue;
      }
      const ends = this.#lineBreakAt(at);
      if (ends === 0) return -1;
      this.at = at + ends;
      return start;
    }
  }

  /** The record starting at `start` (as `read` returned it) read again into `cells`. */
  readAt(start: number, cells: string[]): void {
    this.at = start;
    this.read(cells);
  }

  /** The length of the line break at `at` (0: none); the first one found is the file's. */
  #lineBreakAt(at: number): number {
    const text = this.text;
    const known = this.#lineBreak;
    if (known !== undefined) {
      if (known.length === 1) return text[at] === known ? 1 : 0;
      return text[at] === "\r" && text[at + 1] === "\n" ? 2 : 0;
    }
    const char = text[at];
    if (char === "\r") this.#lineBreak = text[at + 1] === "\n" ? "\r\n" : "\r";
    else if (char === "\n") this.#lineBreak = "\n";
    return this.#lineBreak?.length ?? 0;
  }
}

/** Whether two records hold the same cells. */
export function sameCells(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
