-- A task's request (the body as sent, megabytes when pictures are inlined) is kept beside its
-- row, not in it: SQLite writes a row whole, so every move of a task rewrote its request, all
-- of its pages when pictures were inlined.
CREATE TABLE task_requests (
  key TEXT PRIMARY KEY,          -- the task's key (jobs.key)
  request TEXT NOT NULL          -- the body as sent (JSON)
);
INSERT INTO task_requests (key, request) SELECT key, request FROM jobs ORDER BY rowid;
ALTER TABLE jobs DROP COLUMN request;
