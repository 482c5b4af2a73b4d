-- Budgets across runs, as SQLite keeps them (sql/000021): at most `amount` spent per day, week
-- or month (in `timezone`), against one gateway (`scope`) or every gateway (`scope` '').
CREATE TABLE budgets (
  scope text PRIMARY KEY,
  amount double precision NOT NULL,
  per text NOT NULL CHECK (per IN ('day', 'week', 'month')),
  timezone text NOT NULL,
  warn_at double precision,
  set_at bigint NOT NULL
);

CREATE INDEX jobs_by_submitted_at ON jobs (submitted_at) WHERE submitted_at IS NOT NULL;
CREATE INDEX jobs_submitting ON jobs (key) WHERE state = 'submitting';
