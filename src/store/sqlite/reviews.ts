import type { ReportScope } from "../port.js";
import type { ReviewDecision, ReviewRow } from "../rows.js";
import type { SqliteDb } from "./db.js";
import { withScope } from "./scope.js";

/** Reviews: one decision per output, replaced when decided again. */

/**
 * Records the decision on an output (null clears it); false when no such output is on disk,
 * so a reviewer can only judge what a run made.
 */
export function recordReview(
  s: SqliteDb,
  review: { key: string; index: number; decision: ReviewDecision | null; note: string | null },
  now: number,
): boolean {
  return s.transaction(() => {
    const output = s
      .sql("SELECT 1 FROM outputs WHERE job_key = ? AND idx = ? AND state = 'downloaded'")
      .get(review.key, review.index);
    if (output === undefined) return false;
    if (review.decision === null) {
      s.sql("DELETE FROM reviews WHERE job_key = ? AND idx = ?").run(review.key, review.index);
      return true;
    }
    s.sql(
      `INSERT INTO reviews (job_key, idx, decision, note, decided_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (job_key, idx) DO UPDATE SET decision = excluded.decision,
         note = excluded.note, decided_at = excluded.decided_at`,
    ).run(review.key, review.index, review.decision, review.note, now);
    return true;
  });
}

/** The reviews of the outputs in scope, in the order their tasks were recorded. */
export function reviewsOf(s: SqliteDb, scope: ReportScope): ReviewRow[] {
  const { sql, param } = withScope(scope);
  return s
    .sql(
      `${sql} SELECT reviews.* FROM scope JOIN reviews ON reviews.job_key = scope.key
       ORDER BY scope.place, reviews.idx`,
    )
    .all(param) as ReviewRow[];
}
