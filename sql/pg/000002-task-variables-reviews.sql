-- What main's SQLite store gained in sql/000008 to sql/000010, in one step.

-- A receipt's task id is looked up before it is recorded: a gateway answering two submits with
-- one id must not have both tasks take the one result.
CREATE INDEX jobs_by_task_id ON jobs (task_id) WHERE task_id IS NOT NULL;

-- What tells a task apart from its siblings, for reviewers: its matrix variables, its repeat,
-- and its take (a new take is a regeneration asked for after review; the first is take 1).
ALTER TABLE jobs ADD COLUMN vars TEXT;                              -- JSON object; null without a matrix
ALTER TABLE jobs ADD COLUMN repeat_index INTEGER NOT NULL DEFAULT 0; -- 0-based
ALTER TABLE jobs ADD COLUMN take INTEGER NOT NULL DEFAULT 1;

-- What a reviewer decided about each output: approved or rejected, with an optional note.
-- One row per output; deciding again replaces it, and clearing a decision deletes it.
CREATE TABLE reviews (
  job_key TEXT NOT NULL REFERENCES jobs(key),
  idx INTEGER NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('approved', 'rejected')),
  note TEXT,
  decided_at BIGINT NOT NULL,    -- ms since the epoch
  PRIMARY KEY (job_key, idx)
);

-- Run notices (rate limiting, a stop) share the event log with task moves, without a task, as
-- in the SQLite store; the newest of one run are read first.
CREATE INDEX events_notices_by_run ON events (run_id, id) WHERE job_key IS NULL;
