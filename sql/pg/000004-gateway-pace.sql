-- One pacing row per gateway account (a label, the base URL; never the key), shared by every
-- worker process. Times come from the database clock, so host clock skew does not matter.
CREATE TABLE gateway_pace (
  account TEXT PRIMARY KEY,
  -- Submits per second now; also the rate learned across runs.
  rate DOUBLE PRECISION NOT NULL CHECK (rate > 0),
  -- The manifest's submit rate, set by the last worker that opened the row.
  ceiling DOUBLE PRECISION NOT NULL CHECK (ceiling > 0),
  -- The limit the gateway last announced (RateLimit-Policy), per second; the rate stays under it.
  announced DOUBLE PRECISION,
  -- The next free turn: each turn takes GREATEST(next_at, now, paused_until) and moves it 1/rate on.
  next_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  -- No turn before this (Retry-After).
  paused_until TIMESTAMPTZ,
  -- Successes in a row since the last climb or 429.
  successes INTEGER NOT NULL DEFAULT 0,
  -- The rate at which 20 submits in a row last went through; 0 before that.
  sustained DOUBLE PRECISION NOT NULL DEFAULT 0,
  -- Bumped by each cut, so the 429s of one burst halve the rate once fleet-wide.
  epoch BIGINT NOT NULL DEFAULT 0,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp()
);

-- The rates learned before the pace row existed.
INSERT INTO gateway_pace (account, rate, ceiling)
SELECT base_url, submit_rate, submit_rate FROM gateway_state WHERE submit_rate > 0;
