import path from "node:path";
import { parse as parseCsv } from "csv-parse/sync";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { positionIn } from "./diagnostics.js";
import { locate } from "./yaml-nodes.js";

/**
 * Data files of `rows:`: CSV (RFC 4180, by csv-parse), TSV, JSONL and JSON arrays, read into
 * rows of named fields with a way back to where each field is written, for diagnostics.
 */

export type Position = { line: number; col: number };

export interface ParsedRows {
  rows: Record<string, unknown>[];
  /** Field names: a CSV's header, or every key the rows use, in order of appearance. */
  columns: string[];
  /** Cells are text (CSV, TSV): a request field that needs a number takes the cell's number. */
  textCells: boolean;
  /** Where field `field` of row `record` (0-based, data rows only) is written. */
  cellAt(record: number, field: string): Position;
  /** What makes the file unreadable, at its place; rows read before it are kept. */
  problems: { position: Position; message: string }[];
}

export const ROW_FILE_KINDS = [".csv", ".tsv", ".jsonl", ".json"] as const;

/** The rows of a data file by its extension; undefined for an extension gwrun does not read. */
export function parseRowFile(file: string, text: string): ParsedRows | undefined {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".csv") return delimited(text, ",");
  if (ext === ".tsv" || ext === ".tab") return delimited(text, "\t");
  if (ext === ".jsonl" || ext === ".ndjson") return jsonLines(text);
  if (ext === ".json") return jsonArray(text);
  return undefined;
}

const START: Position = { line: 1, col: 1 };

function delimited(text: string, delimiter: string): ParsedRows {
  const problems: ParsedRows["problems"] = [];
  let columns: string[] = [];
  const rows: Record<string, unknown>[] = [];
  let width: number | undefined;
  // Records of the wrong width, by their index among all records (the header is 0).
  const uneven: { index: number; cells: number }[] = [];
  let seen = 0;
  try {
    // A row of the wrong width is reported and left out; the rows around it are kept. Each
    // record becomes its row as it is read: a million are not held twice, as cells and as rows.
    parseCsv(text, {
      bom: true,
      delimiter,
      skip_empty_lines: true,
      relax_column_count: true,
      on_record: (record: string[]) => {
        const index = seen++;
        width ??= record.length;
        if (record.length !== width) uneven.push({ index, cells: record.length });
        else if (index === 0) columns = record.map((name) => name.trim());
        else {
          const row: Record<string, unknown> = {};
          for (let i = 0; i < columns.length; i++) row[columns[i] as string] = record[i] ?? "";
          rows.push(row);
        }
        return null;
      },
    });
  } catch (error) {
    const { lines, message } = error as { lines?: number; message: string };
    problems.push({ position: { line: lines ?? 1, col: 1 }, message: `not CSV: ${message}` });
    // As before rows were read record by record: a file csv-parse refuses gives none.
    rows.length = 0;
    columns = [];
  }
  // Placed only for a diagnostic: where each record starts, found once.
  let starts: number[] | undefined;
  const allStarts = (): number[] => {
    starts ??= recordStarts(text);
    return starts;
  };
  for (const { index, cells } of uneven) {
    const at = allStarts()[index];
    problems.push({
      position: at === undefined ? START : positionIn(text, at),
      message: `this row has ${cells} cells where the header names ${width}`,
    });
  }
  // Data row `record` is record `record + 1` of those kept, the header first.
  const skipped = new Set(uneven.map(({ index }) => index));
  let kept: number[] | undefined;
  return {
    rows,
    columns,
    textCells: true,
    problems,
    cellAt(record, field) {
      kept ??= allStarts().filter((_, index) => !skipped.has(index));
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

function jsonLines(text: string): ParsedRows {
  const rows: Record<string, unknown>[] = [];
  const lines: number[] = [];
  const problems: ParsedRows["problems"] = [];
  const all = text.replace(/^\uFEFF/, "").split("\n");
  all.forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      const value = JSON.parse(line) as unknown;
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        problems.push({
          position: { line: index + 1, col: 1 },
          message: "each line must be a JSON object of named fields",
        });
        return;
      }
      rows.push(value as Record<string, unknown>);
      lines.push(index + 1);
    } catch (error) {
      const col = jsonErrorOffset(error) + 1;
      problems.push({
        position: { line: index + 1, col },
        message: `not JSON: ${(error as Error).message}`,
      });
    }
  });
  return {
    rows,
    columns: columnsOf(rows),
    textCells: false,
    problems,
    cellAt(record, field) {
      const line = lines[record] ?? 1;
      const at = (all[line - 1] ?? "").indexOf(JSON.stringify(field));
      return { line, col: at === -1 ? 1 : at + 1 };
    },
  };
}

function jsonArray(text: string): ParsedRows {
  const problems: ParsedRows["problems"] = [];
  const body = text.replace(/^\uFEFF/, "");
  let value: unknown = [];
  try {
    value = JSON.parse(body);
  } catch (error) {
    const position = positionIn(body, jsonErrorOffset(error));
    problems.push({ position, message: `not JSON: ${(error as Error).message}` });
  }
  let doc: ReturnType<typeof parseDocument> | undefined;
  let counter: LineCounter | undefined;
  const nodeAt = (steps: (string | number)[]): Position => {
    // Placed only for a diagnostic: the JSON is read again with positions.
    if (doc === undefined) {
      counter = new LineCounter();
      doc = parseDocument(body, { lineCounter: counter });
    }
    const contents = doc.contents;
    if (!isSeq(contents) && !isMap(contents)) return START;
    const found = locate(doc, contents, steps);
    return (counter as LineCounter).linePos(found.node.range?.[0] ?? 0);
  };
  const rows: Record<string, unknown>[] = [];
  const indexes: number[] = [];
  if (!Array.isArray(value)) {
    if (problems.length === 0)
      problems.push({ position: START, message: "a JSON rows file must be an array of objects" });
  } else {
    value.forEach((item: unknown, index) => {
      if (item === null || typeof item !== "object" || Array.isArray(item)) {
        problems.push({ position: nodeAt([index]), message: "each item must be a JSON object" });
        return;
      }
      rows.push(item as Record<string, unknown>);
      indexes.push(index);
    });
  }
  return {
    rows,
    columns: columnsOf(rows),
    textCells: false,
    problems,
    cellAt: (record, field) => nodeAt([indexes[record] ?? 0, field]),
  };
}

/** JSON.parse names the offset of its error as "position N". */
function jsonErrorOffset(error: unknown): number {
  const match = /position (\d+)/.exec((error as Error).message);
  return match === null ? 0 : Number(match[1]);
}

/** Every key the rows use, in order of first appearance. */
export function columnsOf(rows: readonly Record<string, unknown>[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key in row) seen.add(key);
  return [...seen];
}
