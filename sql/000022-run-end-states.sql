-- A run's tasks by state when it ended: what the run did, which later runs of the same tasks
-- do not change (the runs page shows it for a run that ended).
ALTER TABLE runs ADD COLUMN end_states TEXT;
