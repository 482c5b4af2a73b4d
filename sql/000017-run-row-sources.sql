-- The bodies of the URLs a run's `rows:` named (a spreadsheet published as CSV), as the run
-- read them: `gwrun resume` goes on with these rows, not with what the URL serves by then.
CREATE TABLE run_row_sources (
  run_id INTEGER NOT NULL REFERENCES runs(id),
  url TEXT NOT NULL,             -- as the manifest names it, ${NAME}s read
  format TEXT NOT NULL,          -- what the body is read as: csv, tsv, jsonl or json
  sha256 TEXT NOT NULL,          -- of the body's bytes
  body TEXT NOT NULL,
  fetched_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, url)
);
