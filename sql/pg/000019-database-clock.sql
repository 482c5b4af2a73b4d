-- The fleet's clock: the database's, shifted by what a test moves it by. Every time the fleet
-- keeps in SQL (its pace, heartbeats, the reaper, download priorities) is read from
-- gwrun_now(), so a test moves one row instead of sleeping; no one moves it in use, and hosts
-- with skewed clocks still share one clock.
CREATE TABLE gwrun_clock (
  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
  shift INTERVAL NOT NULL DEFAULT '0'
);
INSERT INTO gwrun_clock DEFAULT VALUES;

CREATE FUNCTION gwrun_now() RETURNS timestamptz LANGUAGE sql VOLATILE AS $$
  SELECT clock_timestamp() + COALESCE((SELECT shift FROM gwrun_clock), '0')
$$;

ALTER TABLE gateway_pace
  ALTER COLUMN next_at SET DEFAULT gwrun_now(),
  ALTER COLUMN updated_at SET DEFAULT gwrun_now();
ALTER TABLE workers
  ALTER COLUMN started_at SET DEFAULT gwrun_now(),
  ALTER COLUMN heartbeat_at SET DEFAULT gwrun_now();

CREATE OR REPLACE FUNCTION gwrun_download_priority(task_key TEXT) RETURNS INTEGER
LANGUAGE sql STABLE AS $$
  SELECT COALESCE(
    LEAST(1440, GREATEST(0, ((MIN(expires_at) - EXTRACT(EPOCH FROM gwrun_now()) * 1000) / 60000)::INTEGER)),
    1440)
  FROM outputs WHERE job_key = task_key AND state = 'pending'
$$;
