import { read, rows } from "../program.js";
import type { JobStateCount, LabelledReview } from "../report-port.js";
import { runTasks } from "./run-tasks.js";

/**
 * What `gwrun status` reads of a run as counts and short lists, never every task: a run of
 * 300,000 tasks answers as fast as its groups and failures allow.
 */

export const statusReads = {
  /** A run's tasks counted by job, family and state, jobs in the order first recorded. */
  jobStatesOf: read(function* (runId: number) {
    const found = yield* rows<JobStateCount>(
      (d) => `SELECT jobs.job_id, jobs.family, jobs.state, count(*) AS n, min(${d.place}) AS first
       FROM ${runTasks(d)} WHERE run_jobs.run_id = ?
       GROUP BY jobs.job_id, jobs.family, jobs.state`,
      [runId],
    );
    // Sorted here: the first place of a job is the least over its groups.
    const firsts = new Map<string, number>();
    for (const row of found as (JobStateCount & { first: number })[])
      firsts.set(row.job_id, Math.min(firsts.get(row.job_id) ?? row.first, row.first));
    return found
      .map(({ job_id, family, state, n }) => ({ job_id, family, state, n: Number(n) }))
      .sort((a, b) => (firsts.get(a.job_id) ?? 0) - (firsts.get(b.job_id) ?? 0));
  }),
  /** Finished results of a run not downloaded yet whose links expire before `before` (ms). */
  expiringOf: read(function* (runId: number, before: number) {
    return yield* rows<{ label: string; expires_at: number }>(
      (d) => `SELECT jobs.label, outputs.expires_at FROM ${runTasks(d)}
         JOIN outputs ON outputs.job_key = jobs.key
       WHERE run_jobs.run_id = ? AND jobs.state = 'completed' AND outputs.state = 'pending'
         AND outputs.expires_at IS NOT NULL AND outputs.expires_at < ?
       ORDER BY ${d.place}, outputs.idx`,
      [runId, before],
    );
  }),
  /** A run's reviews with their tasks' labels, in the order the tasks were recorded. */
  labelledReviewsOf: read(function* (runId: number) {
    return yield* rows<LabelledReview>(
      (d) => `SELECT jobs.label, reviews.idx, reviews.decision, reviews.note FROM ${runTasks(d)}
         JOIN reviews ON reviews.job_key = jobs.key
       WHERE run_jobs.run_id = ? ORDER BY ${d.place}, reviews.idx`,
      [runId],
    );
  }),
};
