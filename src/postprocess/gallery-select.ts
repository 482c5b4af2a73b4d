import type { ReviewRecord } from "./review-record.js";

/**
 * The gallery's mark of a best take (`select:`): "selected" on the winners of their group,
 * with the judge's score; takes not selected show their score only.
 */
export function selectedBadge(record: Pick<ReviewRecord, "selected" | "judge">): string {
  if (record.selected === undefined) return "";
  const score = record.judge?.score;
  const scored = score === undefined ? "no score" : `score ${score}`;
  return record.selected
    ? ` <span class="badge selected">selected · ${scored}</span>`
    : ` <span class="badge unchecked">${scored}</span>`;
}
