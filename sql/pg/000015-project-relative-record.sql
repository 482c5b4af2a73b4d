-- A record that holds wherever the project sits, pays once per file, and says what each run paid.

-- The project folder a run was started in, as that process saw it (for messages only). Paths in
-- the record are relative to the project folder; NULL marks a run recorded when they were
-- absolute, which the store rewrites once (`legacy-paths.ts`).
ALTER TABLE runs ADD COLUMN project_dir TEXT;

-- The run whose submit the gateway took: what the task cost is that run's spend.
ALTER TABLE jobs ADD COLUMN paid_run INTEGER;
-- Whether another task goes by a task's label: only then may its file name be taken.
CREATE INDEX jobs_by_label ON jobs (job_id, label);

-- When the output's file landed (ms since the epoch).
ALTER TABLE outputs ADD COLUMN downloaded_at BIGINT;
-- Which output holds a file: a paid file's name is never given to another output.
CREATE INDEX outputs_by_path ON outputs (path) WHERE path IS NOT NULL;

-- An output delivered into another output folder than the one it was downloaded into (a copied
-- manifest, a dated folder): hard-linked or copied there, verified by hash.
CREATE TABLE output_copies (
  job_key TEXT NOT NULL REFERENCES jobs(key),
  idx INTEGER NOT NULL,
  output_dir TEXT NOT NULL,      -- the folder it was delivered into
  path TEXT NOT NULL,
  thumbnail TEXT,
  poster TEXT,
  copied_at BIGINT NOT NULL,
  PRIMARY KEY (job_key, idx, output_dir)
);
CREATE INDEX output_copies_by_path ON output_copies (path);
