-- Each worker's lease, so `status` can tell a worker that has gone silent (and will be found
-- dead once its lease runs out) from a live one.
ALTER TABLE workers ADD COLUMN lease_ms INTEGER;
