import path from "node:path";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { delimitedRows } from "./delimited-rows.js";
import { positionIn } from "./diagnostics.js";
import type { ParsedRows, Position, RowsFormat } from "./row-types.js";
import { locate } from "./yaml-nodes.js";

/**
 * Data files of `rows:`: CSV (RFC 4180, by csv-parse), TSV, JSONL and JSON arrays, read into
 * rows of named fields with a way back to where each field is written, for diagnostics.
 */

export const ROW_FILE_KINDS = [".csv", ".tsv", ".jsonl", ".json"] as const;

/** The rows of a data file by its extension; undefined for an extension gwrun does not read. */
export function parseRowFile(file: string, text: string): ParsedRows | undefined {
  const ext = path.extname(file).toLowerCase();
  if (ext === ".csv") return parseRowsAs("csv", text);
  if (ext === ".tsv" || ext === ".tab") return parseRowsAs("tsv", text);
  if (ext === ".jsonl" || ext === ".ndjson") return parseRowsAs("jsonl", text);
  if (ext === ".json") return parseRowsAs("json", text);
  return undefined;
}

/** The rows of `text` read as `format` (a URL's body). */
export function parseRowsAs(format: RowsFormat, text: string): ParsedRows {
  if (format === "csv") return delimitedRows(text, ",");
  if (format === "tsv") return delimitedRows(text, "\t");
  return format === "jsonl" ? jsonLines(text) : jsonArray(text);
}

const START: Position = { line: 1, col: 1 };

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
    count: rows.length,
    rowAt: (record) => rows[record] as Record<string, unknown>,
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
    count: rows.length,
    rowAt: (record) => rows[record] as Record<string, unknown>,
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
