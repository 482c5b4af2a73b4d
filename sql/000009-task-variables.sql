-- What tells a task apart from its siblings, for reviewers: its matrix variables, its repeat,
-- and its take (a new take is a regeneration asked for after review; the first is take 1).
ALTER TABLE jobs ADD COLUMN vars TEXT;                              -- JSON object; null without a matrix
ALTER TABLE jobs ADD COLUMN repeat_index INTEGER NOT NULL DEFAULT 0; -- 0-based
ALTER TABLE jobs ADD COLUMN take INTEGER NOT NULL DEFAULT 1;
