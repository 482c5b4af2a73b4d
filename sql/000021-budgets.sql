-- Budgets across runs: at most `amount` spent per day, week or month (in `timezone`), by runs
-- against one gateway (`scope`, its base URL) or against every gateway (`scope` '').
CREATE TABLE budgets (
  scope TEXT PRIMARY KEY,
  amount REAL NOT NULL,
  per TEXT NOT NULL CHECK (per IN ('day', 'week', 'month')),
  timezone TEXT NOT NULL,
  warn_at REAL,                  -- a share of `amount` (0.8): told once the period passes it
  set_at INTEGER NOT NULL        -- ms since the epoch
) WITHOUT ROWID;

-- A period's spend is read by the time tasks were sent.
CREATE INDEX jobs_by_submitted_at ON jobs (submitted_at) WHERE submitted_at IS NOT NULL;
-- And the few tasks being sent (claimed, not yet answered): a period counts them from their claim.
CREATE INDEX jobs_submitting ON jobs (key) WHERE state = 'submitting';
