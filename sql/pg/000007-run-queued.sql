-- A run is queued once the process recording it has placed its tasks and queued their jobs;
-- until then no worker may take it for settled (its tasks may not all be there yet).
ALTER TABLE runs ADD COLUMN queued BOOLEAN NOT NULL DEFAULT false;
UPDATE runs SET queued = true;
