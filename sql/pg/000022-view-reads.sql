-- What a person looks at of a large run reads its tasks through these, never the tasks' wide
-- rows: the columns the viewer's pages, `gwrun status` and `gwrun report` count, sort and
-- filter a run's tasks by, under each task's key (how a run names its tasks).
CREATE INDEX jobs_of_runs ON jobs (key)
  INCLUDE (state, job_id, family, label, placeholder, updated_at, created_at, done_at, cost, paid_run, place);
-- Which of a task's outputs are on disk, without reading the outputs' paths and checks.
CREATE INDEX outputs_by_state ON outputs (job_key, state);
-- A run's failures, found among the few tasks that failed rather than among all of its tasks.
CREATE INDEX jobs_failed ON jobs (key) WHERE state IN ('failed', 'rejected', 'expired', 'skipped');
