import { DATA_FILE_MAX_BYTES } from "../core/file-gate.js";
import { didYouMean } from "../core/suggest.js";
import { isRecord } from "../core/values.js";
import type { Diagnostic } from "./diagnostics.js";
import { fileGlobsOf, readFileRows } from "./file-rows.js";
import { jobPath } from "./job-path.js";
import type { Reporter } from "./report.js";
import { columnsOf, parseRowFile, parseRowsAs, ROW_FILE_KINDS } from "./row-files.js";
import type { ParsedRows, RowSet } from "./row-types.js";
import type { ManifestSource } from "./source.js";
import type { JobSpec } from "./types.js";
import { isWebUrl, rowsUrlOf, shownRowsUrl } from "./url-rows.js";

const parsedFiles = new WeakMap<ManifestSource, Map<string, ParsedRows>>();

/** The rows of a file (or list) that `kept` names by index, all of them without it. */
function keptRows(
  count: number,
  rowAt: (record: number) => Record<string, unknown>,
  kept?: Uint32Array,
): Pick<RowSet, "size" | "row" | "record"> {
  if (kept === undefined) return { size: count, row: rowAt, record: (row) => row };
  return {
    size: kept.length,
    row: (row) => rowAt(kept[row] as number),
    record: (row) => kept[row] ?? 0,
  };
}

/**
 * Reads a job's `rows:` (a path, `{ file, where }`, `{ files, where }`, a URL, `{ url, where }`
 * or a list) into the rows it keeps; problems of the data file are placed in it, those of a
 * URL's body at the URL, a missing file, a glob matching nothing or a `where:` naming no
 * column at the job.
 */
export function readRows(
  raw: unknown,
  spec: Pick<JobSpec, "id" | "index">,
  report: Reporter,
): RowSet {
  const at = ["jobs", spec.index, "rows"];
  let set: RowSet;
  let where: Record<string, unknown> | undefined;
  const globs = fileGlobsOf(raw);
  const url = rowsUrlOf(raw);
  if (Array.isArray(raw)) {
    const rows = raw.filter(isRecord);
    if (rows.length !== raw.length) return UNREAD; // the schema's error
    set = inlineSet(rows);
  } else if (globs !== undefined && isRecord(raw)) {
    set = readFileRows(globs, raw, spec, report);
    if (!set.readable) return set;
    where = isRecord(raw.where) ? raw.where : undefined;
  } else if (url !== undefined) {
    set = readUrlRows(url.url, [...at, ...url.at], spec, report);
    if (!set.readable) return set;
    where = isRecord(raw) && isRecord(raw.where) ? raw.where : undefined;
  } else {
    const written = typeof raw === "string" ? raw : isRecord(raw) ? raw.file : undefined;
    if (typeof written !== "string" || written === "") return UNREAD;
    where = isRecord(raw) && isRecord(raw.where) ? raw.where : undefined;
    const fileAt = typeof raw === "string" ? at : [...at, "file"];
    if (isWebUrl(written)) {
      report.at(
        fileAt,
        "rows-url",
        `rows: file: names a file beside the manifest; rows from a URL are written rows: { url: ${shownRowsUrl(written)} }`,
      );
      return UNREAD;
    }
    const read = report.source.readAside(written, DATA_FILE_MAX_BYTES);
    if ("problem" in read) {
      report.at(fileAt, "rows-file", `rows: ${read.problem}`);
      return UNREAD;
    }
    // Jobs that share a data file read it once, and its problems are told once.
    const known = parsedFiles.get(report.source)?.get(written);
    const parsed = known ?? parseRowFile(written, read.text);
    if (parsed === undefined) {
      report.at(
        fileAt,
        "rows-file",
        `rows: gwrun reads rows from ${ROW_FILE_KINDS.join(", ")} files, not ${written}`,
      );
      return UNREAD;
    }
    if (known === undefined) {
      const files = parsedFiles.get(report.source) ?? new Map<string, ParsedRows>();
      parsedFiles.set(report.source, files.set(written, parsed));
    }
    for (const { position, message } of known === undefined ? parsed.problems : [])
      report.atFile(
        read.file,
        read.text,
        position,
        "rows-file",
        `${message} (rows of job "${spec.id}")`,
      );
    set = {
      file: read.file,
      written,
      text: read.text,
      textCells: parsed.textCells,
      columns: parsed.columns,
      ...keptRows(parsed.count, parsed.rowAt),
      cellAt: parsed.cellAt,
      readable: true,
    };
  }
  if (where !== undefined) keepWhere(set, where, [...at, "where"], spec, report);
  return set;
}

/** A format as messages name it. */
const FORMAT_NAMES = { csv: "CSV", tsv: "TSV", jsonl: "JSON lines", json: "a JSON array" } as const;

/**
 * The rows of a URL's body, fetched before the jobs were expanded (`source.fetchedRows`): what
 * kept it from being fetched, or the first problem of its text, is placed at the URL.
 */
function readUrlRows(
  url: string,
  at: (string | number)[],
  spec: Pick<JobSpec, "id">,
  report: Reporter,
): RowSet {
  const shown = shownRowsUrl(url);
  const body = report.source.fetchedRows.get(url);
  if (!isWebUrl(url) || body === undefined) {
    const message = isWebUrl(url)
      ? `rows: ${shown} was not fetched before the manifest was checked`
      : `rows: gwrun fetches rows over http:// and https:// only, not ${shown}`;
    report.at(at, "rows-url", message, {
      hint: "name an http(s) URL, or a CSV, TSV, JSONL or JSON file beside the manifest",
    });
    return UNREAD;
  }
  if ("problem" in body) {
    report.at(at, body.rule ?? "rows-url", `rows: ${body.problem}`, { hint: body.hint });
    return UNREAD;
  }
  // Jobs that share a URL parse its body once, and its problems are told once.
  const known = parsedFiles.get(report.source)?.get(url);
  const parsed = known ?? parseRowsAs(body.format, body.text);
  const [first, ...more] = known === undefined ? parsed.problems : [];
  if (known === undefined) {
    const files = parsedFiles.get(report.source) ?? new Map<string, ParsedRows>();
    parsedFiles.set(report.source, files.set(url, parsed));
  }
  if (first !== undefined) {
    const others = more.length === 0 ? "" : ` (and ${more.length} more problems)`;
    report.at(
      at,
      "rows-url",
      `rows: line ${first.position.line} of ${shown}, read as ${FORMAT_NAMES[body.format]}: ${first.message}${others} (rows of job "${spec.id}")`,
      {
        hint: "mend the sheet where it is published; the extension of the URL's path, else its Content-Type, says how it is read (.csv, .tsv, .jsonl, .json)",
      },
    );
  }
  return {
    ...inlineSet([]),
    written: shown,
    textCells: parsed.textCells,
    columns: parsed.columns,
    ...keptRows(parsed.count, parsed.rowAt),
  };
}

function inlineSet(rows: Record<string, unknown>[]): RowSet {
  return {
    file: undefined,
    written: undefined,
    text: undefined,
    textCells: false,
    columns: columnsOf(rows),
    ...keptRows(rows.length, (record) => rows[record] as Record<string, unknown>),
    cellAt: () => ({ line: 1, col: 1 }),
    readable: true,
  };
}

/** Rows that could not be read: the job makes no tasks, and names no column wrongly. */
const UNREAD: RowSet = { ...inlineSet([]), readable: false };

/** Keeps the rows whose fields hold `where`'s values (compared as text: a CSV cell is text). */
function keepWhere(
  set: RowSet,
  where: Record<string, unknown>,
  at: (string | number)[],
  spec: Pick<JobSpec, "id">,
  report: Reporter,
): void {
  const named = set.written ?? "the rows";
  const unknown = Object.keys(where).filter((field) => !set.columns.includes(field));
  for (const field of unknown) {
    report.at(
      [...at, field],
      "unknown-column",
      `where: ${named} has no column "${field}"${didYouMean(field, set.columns)}; its columns are ${set.columns.join(", ")}`,
      { key: true },
    );
  }
  if (unknown.length > 0) return;
  // The set holds every row of its file here: row `index` is record `index`.
  const total = set.size;
  const entries = Object.entries(where).map(([field, value]) => [field, String(value)] as const);
  const records: number[] = [];
  for (let index = 0; index < total; index++) {
    const row = set.row(index);
    if (entries.every(([field, value]) => String(row[field]) === value)) records.push(index);
  }
  Object.assign(set, keptRows(total, set.row, Uint32Array.from(records)));
  if (records.length === 0)
    report.at(
      at,
      "rows-empty",
      `where: keeps none of the ${total} rows of ${named}, so job "${spec.id}" makes no tasks`,
      { severity: "warning" },
    );
}

/**
 * Reports a problem of a request field that came from a row at the row's cell: in the data
 * file, or in the manifest for rows written there.
 */
export function reportAtRow(
  report: Reporter,
  spec: JobSpec,
  row: number,
  field: string,
  rule: string,
  message: string,
  severity: Diagnostic["severity"] = "error",
): void {
  const set = spec.rows as RowSet;
  const record = set.record(row);
  if (set.files !== undefined) {
    // A file row is named by its file, at the glob that matched it.
    const file = set.files.name(record);
    const named = message.includes(file) ? "" : `file ${file}, `;
    const text = `${message} (${named}used by job "${spec.id}")`;
    report.at(set.files.at(record), rule, text, { severity }, jobPath(spec));
    return;
  }
  const which = ` (row ${record + 1}, used by job "${spec.id}")`;
  if (set.file === undefined || set.text === undefined) {
    report.at(["rows", record, field], rule, `${message}${which}`, { severity }, jobPath(spec));
    return;
  }
  report.atFile(
    set.file,
    set.text,
    set.cellAt(record, field),
    rule,
    `${message}${which}`,
    severity,
  );
}

const ROW_REFERENCE = /\{\{\s*row\.([A-Za-z_][A-Za-z0-9_]*)/;

/** The first row field a written value reads (`{{row.seconds}}` → "seconds"), deeply. */
export function rowFieldIn(value: unknown): string | undefined {
  if (typeof value === "string") return ROW_REFERENCE.exec(value)?.[1];
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = rowFieldIn(item);
      if (found !== undefined) return found;
    }
  } else if (isRecord(value)) {
    for (const item of Object.values(value)) {
      const found = rowFieldIn(item);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
