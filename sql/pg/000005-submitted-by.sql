-- The worker whose claim a receipt ended: which host paid for a task, and each worker's share.
ALTER TABLE jobs ADD COLUMN submitted_by TEXT;
