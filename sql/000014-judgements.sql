-- What a judge (a multimodal text model) said of each output: asked before the call, its
-- verdict and reason recorded once. The answer is kept on disk before it is recorded, so a
-- process stopped in between records it from there instead of asking (and paying) again.
CREATE TABLE judgements (
  job_key TEXT NOT NULL REFERENCES jobs(key),
  idx INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('asking', 'judged')),
  model TEXT NOT NULL,
  verdict TEXT CHECK (verdict IN ('pass', 'fail', 'undecided')),
  reason TEXT,
  answer TEXT,
  cost REAL,                     -- what the judge's call cost; also counted in the task's cost
  asked_at INTEGER NOT NULL,     -- ms since the epoch
  judged_at INTEGER,
  PRIMARY KEY (job_key, idx)
) WITHOUT ROWID;
