-- A claim counts the run's tasks in flight on its lane itself, by the partial index
-- `jobs_in_flight`, and counts no further than the lane's cap; the counter rows that triggers
-- moved on every task's entry into and exit from flight (sql/pg/000010) go. Those triggers
-- were about a third of the cost of moving a task (a 10,000-task fleet run did 11-17 % more
-- jobs a second without them), where a count of 2,000 tasks in flight takes 0.35 ms, once
-- per claim of up to ten tasks.
--
-- A claim within a budget also takes the run's own lock. The lock of its lane alone let a
-- claim of clips run beside one of pictures of the same run: each counted what was spent
-- before the other committed, and together they reserved past max_cost (six tasks of 0.3
-- against a budget of 1).
DROP TRIGGER jobs_flight_inserted ON jobs;
DROP TRIGGER jobs_flight_moved ON jobs;
DROP TRIGGER jobs_flight_deleted ON jobs;
DROP FUNCTION gwrun_count_flight();
DROP FUNCTION gwrun_in_flight(TEXT);
DROP TABLE lane_flights;

CREATE OR REPLACE FUNCTION gwrun_claim_tasks(
  claim_keys TEXT[],
  claim_run INTEGER,
  claim_lanes TEXT[],
  cap BIGINT,
  max_cost FLOAT8,        -- NULL: no budget
  unknown_cost FLOAT8,    -- reserved for a task without an estimate
  own_costs FLOAT8[],     -- each task's reservation
  claimer TEXT,
  next_attempts INTEGER[],
  claimed_at BIGINT
) RETURNS TABLE (task_key TEXT, outcome TEXT) LANGUAGE plpgsql AS $$
DECLARE
  flying BIGINT;
  spent FLOAT8;
  i INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run || ':' || claim_lanes[1]));
  -- Counted no further than the cap: that is all a claim needs to know.
  SELECT count(*) INTO flying FROM (
    SELECT 1 FROM jobs
     WHERE run_id = claim_run AND lane = ANY(claim_lanes)
       AND state IN ('submitting', 'submitted', 'processing')
     LIMIT cap) f;
  IF max_cost IS NOT NULL THEN
    -- Taken after the lane's lock, by every claim within a budget: no two wait on each other.
    PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run));
    -- What is spent (a cost, else its reservation) plus what is in flight, at reservations;
    -- to a millionth, as the port's budget counts.
    SELECT round(COALESCE(SUM(CASE WHEN state IN ('completed', 'downloaded', 'done')
                                   THEN COALESCE(cost, estimated_cost, unknown_cost)
                                   ELSE COALESCE(estimated_cost, unknown_cost) END), 0) * 1e6) / 1e6
      INTO spent
      FROM jobs WHERE run_id = claim_run
        AND state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing');
  END IF;
  FOR i IN 1 .. COALESCE(cardinality(claim_keys), 0) LOOP
    task_key := claim_keys[i];
    IF flying >= cap THEN
      outcome := 'full';
    ELSIF max_cost IS NOT NULL
          AND (spent >= max_cost OR round((spent + own_costs[i]) * 1e6) / 1e6 > max_cost) THEN
      outcome := 'budget';
    ELSE
      WITH moved AS (
        UPDATE jobs SET state = 'submitting', updated_at = claimed_at, claimed_by = claimer,
          attempts = next_attempts[i]
        WHERE key = claim_keys[i] AND state = 'pending' RETURNING run_id, key)
      INSERT INTO events (run_id, at, job_key, type, data)
      SELECT run_id, claimed_at, key, 'job:submitting', NULL FROM moved;
      IF FOUND THEN
        outcome := 'claimed';
        flying := flying + 1;
        spent := round((spent + own_costs[i]) * 1e6) / 1e6;
      ELSE
        outcome := 'gone';
      END IF;
    END IF;
    RETURN NEXT;
  END LOOP;
END
$$;
