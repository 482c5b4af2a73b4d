import type { ReportScope } from "../port.js";
import type { ReviewDecision, ReviewRow } from "../rows.js";
import { changes, type PgDb, row, rows } from "./db.js";
import { withScope } from "./scope.js";

/** Reviews: one decision per output, replaced when decided again (`../sqlite/reviews.ts`). */

/**
 * Records the decision on an output (null clears it); false when no such output is on disk,
 * so a reviewer can only judge what a run made.
 */
export function recordReview(
  db: PgDb,
  review: { key: string; index: number; decision: ReviewDecision | null; note: string | null },
  now: number,
): Promise<boolean> {
  return db.transaction(async (sql) => {
    const output = await row(
      sql,
      "SELECT 1 FROM outputs WHERE job_key = $1 AND idx = $2 AND state = 'downloaded' FOR SHARE",
      [review.key, review.index],
    );
    if (output === undefined) return false;
    if (review.decision === null) {
      await changes(sql, "DELETE FROM reviews WHERE job_key = $1 AND idx = $2", [
        review.key,
        review.index,
      ]);
      return true;
    }
    await changes(
      sql,
      `INSERT INTO reviews (job_key, idx, decision, note, decided_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (job_key, idx) DO UPDATE SET decision = excluded.decision,
         note = excluded.note, decided_at = excluded.decided_at`,
      [review.key, review.index, review.decision, review.note, now],
    );
    return true;
  });
}

/** The reviews of the outputs in scope, in the order their tasks were recorded. */
export function reviewsOf(db: PgDb, scope: ReportScope): Promise<ReviewRow[]> {
  const { sql, param } = withScope(scope);
  return rows<ReviewRow>(
    db.pool,
    `${sql} SELECT reviews.* FROM scope JOIN reviews ON reviews.job_key = scope.key
     ORDER BY scope.place, reviews.idx`,
    [param],
  );
}
