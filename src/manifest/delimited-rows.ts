import { parse as parseCsv } from "csv-parse/sync";
import { RecordReader, sameCells } from "./csv-records.js";
import { positionIn } from "./diagnostics.js";
import type { ParsedRows, Position } from "./row-types.js";

const START: Position = { line: 1, col: 1 };

/**
 * Rows of a CSV or TSV file. csv-parse reads the file and says what is wrong with it; each row
 * it gives is held as where it starts in the text, read again when a job expands it: a million
 * rows cost the text and four bytes each, not a million objects of cells.
 */

/** How `rows:` files are read: a byte-order mark skipped, empty lines too, rows of any width. */
export const CSV_OPTIONS = { bom: true, skip_empty_lines: true, relax_column_count: true } as const;

export function delimitedRows(text: string, delimiter: string): ParsedRows {
  const problems: ParsedRows["problems"] = [];
  let columns: string[] = [];
  let width: number | undefined;
  // Records of the wrong width, by their index among all records (the header is 0).
  const uneven: { index: number; cells: number }[] = [];
  let seen = 0;
  const reader = new RecordReader(text, delimiter);
  const cells: string[] = [];
  // Rows read again from where they start; past any record the reader reads otherwise than
  // csv-parse (none in a file csv-parse accepts, but its word is the one kept), rows held whole.
  let starts: number[] = [];
  let held: string[][] = [];
  let agreed = true;
  try {
    // A row of the wrong width is reported and left out; the rows around it are kept.
    parseCsv(text, {
      ...CSV_OPTIONS,
      delimiter,
      on_record: (record: string[]) => {
        const index = seen++;
        const start = agreed ? reader.read(cells) : -1;
        agreed &&= start !== -1 && sameCells(cells, record);
        width ??= record.length;
        if (record.length !== width) uneven.push({ index, cells: record.length });
        else if (index === 0) columns = record.map((name) => name.trim());
        else if (agreed) starts.push(start);
        else held.push(record);
        return null;
      },
    });
  } catch (error) {
    const { lines, message } = error as { lines?: number; message: string };
    problems.push({ position: { line: lines ?? 1, col: 1 }, message: `not CSV: ${message}` });
    // As before rows were read record by record: a file csv-parse refuses gives none.
    starts = [];
    held = [];
    columns = [];
  }
  // Placed only for a diagnostic: where each record starts, found once.
  let allStarts: number[] | undefined;
  const recordsAt = (): number[] => {
    allStarts ??= recordStarts(text);
    return allStarts;
  };
  for (const { index, cells } of uneven) {
    const at = recordsAt()[index];
    problems.push({
      position: at === undefined ? START : positionIn(text, at),
      message: `this row has ${cells} cells where the header names ${width}`,
    });
  }
  // Data row `record` is record `record + 1` of those kept, the header first.
  const skipped = new Set(uneven.map(({ index }) => index));
  let kept: number[] | undefined;
  const rowStarts = Uint32Array.from(starts);
  const count = rowStarts.length + held.length;
  return {
    count,
    rowAt(record) {
      const start = rowStarts[record];
      let found = held[record - rowStarts.length];
      if (start !== undefined) {
        reader.readAt(start, cells);
        found = cells;
      }
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) row[columns[i] as string] = found?.[i] ?? "";
      return row;
    },
    columns,
    textCells: true,
    problems,
    cellAt(record, field) {
      kept ??= recordsAt().filter((_, index) => !skipped.has(index));
      const start = kept[record + 1];
      if (start === undefined) return START;
      return positionIn(
        text,
        cellStart(text, start, Math.max(0, columns.indexOf(field)), delimiter),
      );
    },
  };
}

/**
 * Where each record starts in `text`, by a scan that knows only quotes and line breaks:
 * positions alone, for diagnostics (csv-parse reads the values; its line count drifts after a
 * quoted line break in a file of CRLF lines). Empty lines start no record, as csv-parse skips them.
 */
function recordStarts(text: string): number[] {
  const starts: number[] = [];
  let quoted = false;
  let lineStart = text.startsWith("\uFEFF") ? 1 : 0;
  let blank = true;
  for (let at = lineStart; at <= text.length; at++) {
    const char = text[at];
    if (char === '"') quoted = !quoted;
    if (char === undefined || (char === "\n" && !quoted)) {
      if (!blank) starts.push(lineStart);
      lineStart = at + 1;
      blank = true;
    } else if (char !== "\r" && char !== "\n") blank = false;
  }
  return starts;
}

/** Where cell `index` of the record starting at `start` begins: quoted delimiters are text. */
function cellStart(text: string, start: number, index: number, delimiter: string): number {
  let cell = 0;
  let quoted = false;
  let at = start;
  for (; at < text.length && cell < index; at++) {
    const char = text[at];
    if (char === '"') quoted = !quoted;
    else if (char === delimiter && !quoted) cell++;
  }
  return at;
}
