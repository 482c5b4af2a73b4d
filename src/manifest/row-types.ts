/**
 * The rows of a job's `rows:` as read: a data file's, as `row-files.ts` parses it, the files a
 * glob matches (`file-rows.ts`), and the set a job keeps (`rows.ts`), each with where every
 * field is written.
 */

/** What was probed of a file `rows: { files }` lists: a picture's sides, a clip's seconds. */
export interface FileMedia {
  width?: number;
  height?: number;
  duration?: number;
}

/** What a body is read as: the data file extensions gwrun reads, without the dot. */
export type RowsFormat = "csv" | "tsv" | "jsonl" | "json";

/** A `rows:` URL's body as a check reads it: fetched now, or as the run continued recorded it. */
export interface RowsBody {
  url: string;
  format: RowsFormat;
  /** Hex sha256 of the body's bytes. */
  sha256: string;
  text: string;
  /** When it was fetched (ms). */
  fetchedAt: number;
  /** Taken from the record of the run being continued, not fetched now. */
  recorded: boolean;
}

/**
 * A URL's body, or why there is none: a sentence naming the URL as shown, what to do, and the
 * rule it broke (default `rows-url`).
 */
export type FetchedRows =
  | RowsBody
  | { url: string; problem: string; hint: string; rule?: "secret-in-url" };

/** A place in a file's text, 1-based. */
export type Position = { line: number; col: number };

/** A data file's rows, as its parser reads them. */
export interface ParsedRows {
  /** How many data rows the file holds (a row of the wrong width is left out). */
  count: number;
  /** Data row `record` (0-based) as named fields: a CSV's read again from the file's text. */
  rowAt(record: number): Record<string, unknown>;
  /** Field names: a CSV's header, or every key the rows use, in order of appearance. */
  columns: string[];
  /** Cells are text (CSV, TSV): a request field that needs a number takes the cell's number. */
  textCells: boolean;
  /** Where field `field` of row `record` (0-based, data rows only) is written. */
  cellAt(record: number, field: string): Position;
  /** What makes the file unreadable, at its place; rows read before it are kept. */
  problems: { position: Position; message: string }[];
}

/** A job's `rows:`: the rows it keeps, their fields, and where each is written. */
export interface RowSet {
  /** The data file as diagnostics name it; undefined for rows written in the manifest. */
  file: string | undefined;
  /** The data file's path as the manifest writes it, for messages. */
  written: string | undefined;
  /** The data file's text, for code frames. */
  text: string | undefined;
  /** Cells are text (CSV, TSV): a request field that needs a number takes the cell's number. */
  textCells: boolean;
  columns: string[];
  /** How many rows `where:` keeps. */
  size: number;
  /** Kept row `row` (0-based among those kept) as named fields: a CSV's is read again each time. */
  row(row: number): Record<string, unknown>;
  /** Kept row `row`'s index among all rows of the file (or list). */
  record(row: number): number;
  /** Where field `field` of row `record` is written in `file`. */
  cellAt(record: number, field: string): Position;
  /** False when `rows:` could not be read (its error is reported): no rows, and no columns to check. */
  readable: boolean;
  /**
   * Rows of files (`rows: { files }`): the file of row `record` as messages name it, and where
   * the glob that matched it is written in the job; undefined for other rows.
   */
  files?: { name(record: number): string; at(record: number): (string | number)[] };
}
