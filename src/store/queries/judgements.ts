import type { JudgedOutputRow, JudgementRow } from "../judgement-rows.js";
import { changes, first, read, rows, transaction } from "../program.js";
import type { JudgementAnswer, ReportScope } from "../report-port.js";
import { withScope } from "./scope.js";

/**
 * Judgements: `asking` is written before a judge is called, `judged` once with its verdict.
 * The move is guarded, so a verdict is recorded (and its cost counted) once, whoever records it.
 */

export const judgementOperations = {
  /** The output's judgement: written `asking` now unless one is recorded already; as it stands. */
  askJudge: transaction(function* (
    asked: { key: string; idx: number; model: string },
    now: number,
  ) {
    yield* changes(
      `INSERT INTO judgements (job_key, idx, state, model, asked_at) VALUES (?, ?, 'asking', ?, ?)
       ON CONFLICT (job_key, idx) DO NOTHING`,
      [asked.key, asked.idx, asked.model, now],
    );
    return (yield* first<JudgementRow>("SELECT * FROM judgements WHERE job_key = ? AND idx = ?", [
      asked.key,
      asked.idx,
    ])) as JudgementRow;
  }),
  /**
   * asking → judged with the verdict; the judge's cost is added to its task's. False when
   * it was recorded already (another process, or before a restart).
   */
  recordJudgement: transaction(function* (judged: JudgementAnswer, now: number) {
    const moved = yield* changes(
      `UPDATE judgements SET state = 'judged', verdict = ?, reason = ?, answer = ?, cost = ?,
         judged_at = ?
       WHERE job_key = ? AND idx = ? AND state = 'asking'`,
      [judged.verdict, judged.reason, judged.answer, judged.cost, now, judged.key, judged.idx],
    );
    if (moved === 0) return false;
    if (judged.cost !== null)
      yield* changes("UPDATE jobs SET cost = COALESCE(cost, 0) + ? WHERE key = ?", [
        judged.cost,
        judged.key,
      ]);
    return true;
  }),
  judgementsOf: read(function* (key: string) {
    return yield* rows<JudgementRow>("SELECT * FROM judgements WHERE job_key = ? ORDER BY idx", [
      key,
    ]);
  }),
  /** The judged outputs in scope with any person's decision, in the order their tasks were recorded. */
  judgedOutputs: read(function* (scope: ReportScope) {
    const { sql, param } = withScope(scope);
    return yield* rows<JudgedOutputRow>(
      (d) => `${sql(d)}
       SELECT judgements.job_key, jobs.job_id, jobs.label, jobs.take, judgements.idx,
         judgements.verdict, judgements.reason, judgements.model, judgements.cost,
         reviews.decision, reviews.note
       FROM scope JOIN jobs ON jobs.key = scope.key
       JOIN judgements ON judgements.job_key = scope.key AND judgements.state = 'judged'
       LEFT JOIN reviews ON reviews.job_key = judgements.job_key AND reviews.idx = judgements.idx
       ORDER BY scope.place, judgements.idx`,
      [param],
    );
  }),
};
