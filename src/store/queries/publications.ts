import { changes, read, rows, transaction } from "../program.js";
import type { Publication } from "../rows.js";

/** Objects outputs were published as: one row per output, target and part, replaced when sent again. */

export const publicationOperations = {
  recordPublications: transaction(function* (published: readonly Publication[]) {
    for (const row of published)
      yield* changes(
        `INSERT INTO publications (job_key, idx, target, part, object_key, bytes, sha256, etag,
           published_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (job_key, idx, target, part) DO UPDATE SET
           object_key = excluded.object_key, bytes = excluded.bytes, sha256 = excluded.sha256,
           etag = excluded.etag, published_at = excluded.published_at`,
        [
          row.job_key,
          row.idx,
          row.target,
          row.part,
          row.object_key,
          row.bytes,
          row.sha256,
          row.etag,
          row.published_at,
        ],
      );
  }),
  publicationsOf: read(function* (key: string) {
    return yield* rows<Publication>(
      "SELECT * FROM publications WHERE job_key = ? ORDER BY idx, target, part",
      [key],
    );
  }),
};
