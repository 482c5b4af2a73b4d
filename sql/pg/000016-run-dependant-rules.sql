-- What each `from:` job of a run makes per upstream output (JSON), so `gwrun status` counts
-- the dependants still to come as the run does.
ALTER TABLE runs ADD COLUMN dependant_rules TEXT;
