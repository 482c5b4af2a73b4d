-- What a person looks at of a large run reads its tasks through these, never the tasks' wide
-- rows: the columns the viewer's pages, `gwrun status` and `gwrun report` count, sort and
-- filter a run's tasks by, under each task's key (how a run names its tasks). A move rewrites
-- this entry; reads that would otherwise visit 300,000 rows of requests stay under a second.
CREATE INDEX jobs_of_runs ON jobs
  (key, state, job_id, family, label, placeholder, updated_at, created_at, done_at, cost, paid_run);
-- Which of a task's outputs are on disk, without reading the outputs' paths and checks.
CREATE INDEX outputs_by_state ON outputs (job_key, state);
-- A run's failures, found among the few tasks that failed rather than among all of its tasks.
CREATE INDEX jobs_failed ON jobs (key) WHERE state IN ('failed', 'rejected', 'expired', 'skipped');
-- A run's notices (rate limits, stops) without reading its tasks' moves, as PostgreSQL has it.
CREATE INDEX events_notices_by_run ON events (run_id, id) WHERE job_key IS NULL;
