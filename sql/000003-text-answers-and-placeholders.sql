-- Text answers, and rows that stand in for the dependants of a failed upstream.

-- One row per text job: what the model answered, in the format's own terms.
CREATE TABLE text_answers (
  job_key TEXT PRIMARY KEY REFERENCES jobs(key),
  format TEXT NOT NULL,          -- chat | responses | messages | native
  model TEXT,                    -- the model that answered, as the response names it
  text TEXT NOT NULL,            -- the first choice's text (every choice is an output file)
  choices INTEGER NOT NULL,      -- how many alternatives the answer held (chat's n)
  finish_reason TEXT,            -- finish_reason / stop_reason / finishReason as sent
  usage TEXT,                    -- JSON, the format's own usage fields
  tool_calls TEXT,               -- JSON array of {id, name, arguments}; [] when none
  streamed INTEGER NOT NULL,     -- 1 when the answer came as an SSE stream
  answered_at INTEGER NOT NULL
) WITHOUT ROWID;

-- 1 for a row standing in for a dependant whose upstream failed (recorded `skipped`, one per
-- template and repeat): it is never submitted, and goes once the upstream's real outputs exist.
ALTER TABLE jobs ADD COLUMN placeholder INTEGER NOT NULL DEFAULT 0;
