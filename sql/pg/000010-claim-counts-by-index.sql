-- The claim's counts name their states literally: a state list passed as a parameter hid the
-- partial index `jobs_in_flight` from the plan plpgsql keeps, so each claim scanned the run's
-- tasks (about a millisecond each on a 10,000-task run, while the run's claim lock was held).
DROP FUNCTION gwrun_claim(TEXT, INTEGER, TEXT[], TEXT[], TEXT[], BIGINT, FLOAT8, FLOAT8, FLOAT8, TEXT, INTEGER, BIGINT);

CREATE FUNCTION gwrun_claim(
  claim_key TEXT,
  claim_run INTEGER,
  claim_lanes TEXT[],
  cap BIGINT,
  max_cost FLOAT8,      -- NULL: no budget
  unknown_cost FLOAT8,  -- reserved for a task without an estimate
  own_cost FLOAT8,      -- this task's reservation
  claimer TEXT,
  next_attempts INTEGER,
  claimed_at BIGINT
) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
  flying BIGINT;
  spent FLOAT8;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run || ':' || claim_lanes[1]));
  SELECT count(*) INTO flying FROM jobs
    WHERE run_id = claim_run AND lane = ANY(claim_lanes)
      AND state IN ('submitting', 'submitted', 'processing');
  IF flying >= cap THEN
    RETURN 'full';
  END IF;
  IF max_cost IS NOT NULL THEN
    -- What is spent (a cost, else its reservation) plus what is in flight, at reservations;
    -- to a millionth, as the port's budget counts.
    SELECT round(COALESCE(SUM(CASE WHEN state IN ('completed', 'downloaded', 'done')
                                   THEN COALESCE(cost, estimated_cost, unknown_cost)
                                   ELSE COALESCE(estimated_cost, unknown_cost) END), 0) * 1e6) / 1e6
      INTO spent
      FROM jobs WHERE run_id = claim_run
        AND state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing');
    IF spent >= max_cost OR round((spent + own_cost) * 1e6) / 1e6 > max_cost THEN
      RETURN 'budget';
    END IF;
  END IF;
  WITH moved AS (
    UPDATE jobs SET state = 'submitting', updated_at = claimed_at, claimed_by = claimer,
      attempts = next_attempts
    WHERE key = claim_key AND state = 'pending' RETURNING run_id, key)
  INSERT INTO events (run_id, at, job_key, type, data)
  SELECT run_id, claimed_at, key, 'job:submitting', NULL FROM moved;
  IF NOT FOUND THEN
    RETURN 'gone';
  END IF;
  RETURN 'claimed';
END
$$;
