import path from "node:path";
import { isRecord } from "../core/values.js";
import type { RowsBody, RowsFormat } from "./row-types.js";
import type { ManifestSource } from "./source.js";

/**
 * `rows: https://…/sheet.csv` (or `{ url, where }`): rows from a URL, such as a spreadsheet
 * published as CSV. The manifest stage reads no network: a stage before expansion fetches
 * each URL (or takes the body a run recorded) into `source.fetchedRows`, and `readRows`
 * parses that body as it would a data file's text.
 */

const WEB_URL = /^https?:\/\//i;
const ANY_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The URL a job's `rows:` names — a string with a scheme (`https://…`, and `s3://…` to be
 * refused), or `{ url }` — and where it is written below `rows`; undefined for other rows.
 */
export function rowsUrlOf(raw: unknown): { url: string; at: string[] } | undefined {
  if (typeof raw === "string") return ANY_URL.test(raw) ? { url: raw, at: [] } : undefined;
  if (isRecord(raw) && typeof raw.url === "string") return { url: raw.url, at: ["url"] };
  return undefined;
}

/** Whether gwrun fetches `url`: http:// and https:// only. */
export function isWebUrl(url: string): boolean {
  return WEB_URL.test(url) && URL.canParse(url);
}

/**
 * A rows URL as messages show it: scheme, host and path; credentials, query and fragment left
 * out (a published sheet's query may carry a token), `?…` marking that there was a query.
 */
export function shownRowsUrl(url: string): string {
  if (!URL.canParse(url)) return "the rows URL";
  const parsed = new URL(url);
  const query = parsed.search === "" ? "" : "?…";
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${query}`;
}

const BY_EXTENSION: Readonly<Record<string, RowsFormat>> = {
  ".csv": "csv",
  ".tsv": "tsv",
  ".tab": "tsv",
  ".jsonl": "jsonl",
  ".ndjson": "jsonl",
  ".json": "json",
};

const BY_TYPE: Readonly<Record<string, RowsFormat>> = {
  "text/csv": "csv",
  "application/csv": "csv",
  "text/tab-separated-values": "tsv",
  "application/jsonl": "jsonl",
  "application/x-jsonl": "jsonl",
  "application/x-ndjson": "jsonl",
  "application/ndjson": "jsonl",
  "application/json": "json",
};

/**
 * What a body is read as: by the extension of the URL's path, else by its Content-Type, else
 * by its first line (`[` a JSON array, `{` JSON lines, tabs and no comma TSV), else CSV.
 */
export function rowsFormatOf(
  url: string,
  contentType: string | undefined,
  text: string,
): RowsFormat {
  const pathname = URL.canParse(url) ? new URL(url).pathname : "";
  const byExtension = BY_EXTENSION[path.posix.extname(pathname).toLowerCase()];
  if (byExtension !== undefined) return byExtension;
  const byType = BY_TYPE[(contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? ""];
  if (byType !== undefined) return byType;
  const start = text.replace(/^\uFEFF/, "").trimStart();
  if (start.startsWith("[")) return "json";
  if (start.startsWith("{")) return "jsonl";
  const first = start.split("\n", 1)[0] ?? "";
  return first.includes("\t") && !first.includes(",") ? "tsv" : "csv";
}

/** The bodies a check read from `rows:` URLs: what a run records, to be continued with. */
export function rowsBodiesOf(source: ManifestSource): RowsBody[] {
  return [...source.fetchedRows.values()].filter((body): body is RowsBody => "text" in body);
}
