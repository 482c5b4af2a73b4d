import type { ReportScope } from "../port.js";
import { type ArgsOf, changes, first, read, rows, transaction } from "../program.js";
import type { ReviewRow } from "../rows.js";
import { withScope } from "./scope.js";

/** Reviews: one decision per output, replaced when decided again. */

export const reviewOperations = {
  /**
   * Records the decision on an output (null clears it); false when no such output is on disk,
   * so a reviewer can only judge what a run made.
   */
  recordReview: transaction(function* (...[review, now]: ArgsOf<"recordReview">) {
    const output = yield* first(
      (d) =>
        `SELECT 1 AS found FROM outputs WHERE job_key = ? AND idx = ? AND state = 'downloaded'
         ${d.lock("share")}`,
      [review.key, review.index],
    );
    if (output === undefined) return false;
    if (review.decision === null) {
      yield* changes("DELETE FROM reviews WHERE job_key = ? AND idx = ?", [
        review.key,
        review.index,
      ]);
      return true;
    }
    yield* changes(
      `INSERT INTO reviews (job_key, idx, decision, note, decided_at, reviewer)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (job_key, idx) DO UPDATE SET decision = excluded.decision,
         note = excluded.note, decided_at = excluded.decided_at, reviewer = excluded.reviewer`,
      [review.key, review.index, review.decision, review.note, now, review.by ?? null],
    );
    return true;
  }),
  reviewsOf: read(function* (scope: ReportScope) {
    const { sql, param } = withScope(scope);
    return yield* rows<ReviewRow>(
      (d) => `${sql(d)} SELECT reviews.* FROM scope JOIN reviews ON reviews.job_key = scope.key
       ORDER BY scope.place, reviews.idx`,
      [param],
    );
  }),
};
