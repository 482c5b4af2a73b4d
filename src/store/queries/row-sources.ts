import { changes, read, rows, transaction } from "../program.js";
import type { RowSource } from "../rows.js";

/**
 * The bodies of the URLs a run's `rows:` named, kept with the run (as its manifest is) so that
 * continuing it reads the same rows. A body is kept once per run and URL: the first kept stays.
 */
export const rowSourceOperations = {
  recordRowSources: transaction(function* (runId: number, sources: readonly RowSource[]) {
    for (const source of sources)
      yield* changes(
        `INSERT INTO run_row_sources (run_id, url, format, sha256, body, fetched_at)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, url) DO NOTHING`,
        [runId, source.url, source.format, source.sha256, source.body, source.fetched_at],
      );
  }),
  rowSourcesOf: read(function* (runId: number) {
    return yield* rows<RowSource>(
      "SELECT url, format, sha256, body, fetched_at FROM run_row_sources WHERE run_id = ? ORDER BY url",
      [runId],
    );
  }),
};
