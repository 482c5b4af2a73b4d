-- A gateway that keeps its limit to itself tells it by its 429s: what got through between two
-- of them, while turns went out back to back. The pace stays under it until limit_until, so
-- it does not probe the limit again on every climb.
ALTER TABLE gateway_pace
  ADD COLUMN limit_told DOUBLE PRECISION,
  ADD COLUMN limit_until TIMESTAMPTZ,
  ADD COLUMN limited_at TIMESTAMPTZ,
  ADD COLUMN turns_since INTEGER NOT NULL DEFAULT 0;
