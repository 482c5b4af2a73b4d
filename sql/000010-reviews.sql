-- What a reviewer decided about each output: approved or rejected, with an optional note.
-- One row per output; deciding again replaces it, and clearing a decision deletes it.
CREATE TABLE reviews (
  job_key TEXT NOT NULL REFERENCES jobs(key),
  idx INTEGER NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('approved', 'rejected')),
  note TEXT,
  decided_at INTEGER NOT NULL,   -- ms since the epoch
  PRIMARY KEY (job_key, idx)
) WITHOUT ROWID;
