import {
  type ManifestSource,
  type RowsBody,
  type RowsFormat,
  rowsBodiesOf,
  shownRowsUrl,
} from "../manifest/index.js";
import type { RowSource, Store } from "../store/index.js";

/**
 * The bodies of a manifest's `rows:` URLs kept with its run: recorded when the run is opened,
 * read back when it is continued (`resume`, `retry`, a scheduled tick taken up again, a
 * fleet's worker), so the run goes on with the rows it began with.
 */

const FORMATS: readonly RowsFormat[] = ["csv", "tsv", "jsonl", "json"];

/** The `rows:` URL bodies a check read, as the run records them. */
export function rowSourcesOf(source: ManifestSource): RowSource[] {
  return rowsBodiesOf(source).map((body) => ({
    url: body.url,
    format: body.format,
    sha256: body.sha256,
    body: body.text,
    fetched_at: body.fetchedAt,
  }));
}

/** The bodies run `runId` recorded, for a check of its manifest to read instead of the URLs. */
export async function recordedRows(store: Store, runId: number): Promise<RowsBody[]> {
  return (await store.rowSourcesOf(runId)).map((row) => ({
    url: row.url,
    format: FORMATS.find((format) => format === row.format) ?? "csv",
    sha256: row.sha256,
    text: row.body,
    fetchedAt: row.fetched_at,
    recorded: true,
  }));
}

/** Lines telling which URLs' rows a continued run reads from its record, not fetched again. */
export function recordedRowsLines(source: ManifestSource): string[] {
  return rowsBodiesOf(source)
    .filter((body) => body.recorded)
    .map(
      (body) =>
        `gwrun: ${shownRowsUrl(body.url)}: the rows this run recorded (fetched ${new Date(body.fetchedAt).toISOString()}, sha256 ${body.sha256.slice(0, 12)}…); the URL is not fetched again`,
    );
}
