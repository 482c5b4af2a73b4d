-- Runs, jobs (one row per task key), their outputs, and an append-only event log.

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  manifest_path TEXT NOT NULL,
  -- The manifest as it was when the run started, so `gwrun resume` can continue it.
  manifest_text TEXT NOT NULL,
  base_url TEXT NOT NULL,
  output_dir TEXT NOT NULL,
  status TEXT NOT NULL,          -- running | done | failed | stopped | interrupted
  exit_code INTEGER,
  started_at INTEGER NOT NULL,   -- ms since the epoch
  finished_at INTEGER
);

CREATE TABLE jobs (
  key TEXT PRIMARY KEY,          -- sha256 of the canonical request and repeat index
  run_id INTEGER NOT NULL REFERENCES runs(id),   -- the run that last took it on
  job_id TEXT NOT NULL,          -- the manifest's job id
  label TEXT NOT NULL,           -- job id plus expansion and repeat, names output files
  family TEXT,
  lane TEXT NOT NULL,            -- image | video | text
  endpoint TEXT NOT NULL,
  request TEXT NOT NULL,         -- the body as sent (JSON)
  upstream_key TEXT,             -- for `from:` jobs: the job whose output feeds this one
  state TEXT NOT NULL,
  task_id TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  unknown_submits INTEGER NOT NULL DEFAULT 0,
  claimed_by TEXT,               -- the process that is submitting it
  progress INTEGER,
  polls INTEGER NOT NULL DEFAULT 0,
  next_poll_at INTEGER,
  estimated_cost REAL,
  cost REAL,
  reason TEXT,
  created_at INTEGER NOT NULL,
  submitted_at INTEGER,
  started_at INTEGER,            -- first seen processing
  completed_at INTEGER,
  done_at INTEGER,
  updated_at INTEGER NOT NULL
);
-- Only what queries use: every index is rewritten on each state change.
CREATE INDEX jobs_by_upstream ON jobs (upstream_key);

-- Which jobs a run covers (a job done in an earlier run can be part of a later one).
CREATE TABLE run_jobs (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  key TEXT NOT NULL REFERENCES jobs(key),
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;

CREATE TABLE outputs (
  job_key TEXT NOT NULL REFERENCES jobs(key),
  idx INTEGER NOT NULL,
  url TEXT,
  expires_at INTEGER,            -- ms since the epoch
  state TEXT NOT NULL,           -- pending | downloaded | expired | failed
  path TEXT,
  bytes INTEGER,
  sha256 TEXT,
  content_type TEXT,
  reason TEXT,
  PRIMARY KEY (job_key, idx)
) WITHOUT ROWID;

CREATE TABLE events (
  id INTEGER PRIMARY KEY,
  run_id INTEGER,
  at INTEGER NOT NULL,
  job_key TEXT,
  type TEXT NOT NULL,
  data TEXT
);

-- What gwrun learned about a gateway, e.g. the submit rate it sustains.
CREATE TABLE gateway_state (
  base_url TEXT PRIMARY KEY,
  submit_rate REAL
);
