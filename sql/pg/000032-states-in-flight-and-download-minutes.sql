-- The states a task counts in against a budget and a lane's cap, written once: the same lists
-- as `IN_FLIGHT_STATES` and `PAID_STATES` of src/store/states.ts (test/rules/states.test.ts
-- holds them together). Plain SQL, so the planner inlines them and an index on state still
-- serves.
CREATE FUNCTION gwrun_in_flight(state TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $$
  SELECT state IN ('submitting', 'submitted', 'processing')
$$;

CREATE FUNCTION gwrun_paid(state TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $$
  SELECT state IN ('completed', 'downloaded', 'done')
$$;

CREATE OR REPLACE FUNCTION gwrun_spend_of(state TEXT, cost FLOAT8, estimate FLOAT8,
                                          unknown FLOAT8, unknown_submits INTEGER)
RETURNS FLOAT8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN gwrun_paid(state) THEN COALESCE(cost, estimate, unknown, 0)
              WHEN gwrun_in_flight(state) THEN COALESCE(estimate, unknown, 0)
              ELSE 0 END
         + COALESCE(estimate, unknown, 0) * unknown_submits
$$;

CREATE OR REPLACE FUNCTION gwrun_run_spent(run INTEGER, unknown FLOAT8) RETURNS FLOAT8
LANGUAGE sql STABLE SET enable_seqscan TO 'off' AS $$
  SELECT round(COALESCE(SUM(gwrun_spend_of(state, cost, estimated_cost, unknown,
                                           unknown_submits)), 0) * 1e6) / 1e6
    FROM jobs WHERE run_id = run
      AND (gwrun_paid(state) OR gwrun_in_flight(state) OR unknown_submits > 0)
$$;

-- A claim counts the tasks in flight on its lanes by the same rule.
CREATE OR REPLACE FUNCTION gwrun_claim_tasks(claim_keys text[], claim_run integer, claim_lanes text[], cap bigint, max_cost double precision, unknown_cost double precision, own_costs double precision[], claimer text, next_attempts integer[], claimed_at bigint)
 RETURNS TABLE(task_key text, outcome text)
 LANGUAGE plpgsql
AS $function$
DECLARE
  flying BIGINT;
  spent FLOAT8;
  -- `spent` is the run's bound (at least what it spent), not a count: it refuses nothing.
  bounded BOOLEAN := false;
  kept_unknown FLOAT8;
  -- What the tasks claimed so far reserve: not yet moved, so not in a count.
  reserving FLOAT8 := 0;
  pending_keys TEXT[];
  outcomes TEXT[] := '{}';
  taken INTEGER[] := '{}';
  i INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run || ':' || claim_lanes[1]));
  -- Counted no further than the cap: that is all a claim needs to know.
  SELECT count(*) INTO flying FROM (
    SELECT 1 FROM jobs
     WHERE run_id = claim_run AND lane = ANY(claim_lanes)
       AND gwrun_in_flight(state)
     LIMIT cap) f;
  IF max_cost IS NOT NULL THEN
    -- Taken after the lane's lock, by every claim within a budget: no two wait on each other.
    -- Held alone, it also waits for any rise of the run's spend under way (the trigger).
    PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run));
    SELECT b.bound, b.unknown_cost INTO spent, kept_unknown
      FROM run_spend_bounds b WHERE b.run_id = claim_run;
    bounded := spent IS NOT NULL AND kept_unknown IS NOT DISTINCT FROM unknown_cost;
    IF NOT bounded THEN
      spent := gwrun_run_spent(claim_run, unknown_cost);
    END IF;
  ELSE
    -- Claims without a budget keep no bound: one kept before is no longer one.
    UPDATE run_spend_bounds SET bound = NULL WHERE run_id = claim_run AND bound IS NOT NULL;
  END IF;
  -- The given tasks still pending, held until this claim ends (any other is gone).
  SELECT array_agg(j.key ORDER BY j.key) INTO pending_keys
    FROM (SELECT key FROM jobs WHERE key = ANY(claim_keys) AND state = 'pending'
          ORDER BY key FOR UPDATE) j;
  FOR i IN 1 .. COALESCE(cardinality(claim_keys), 0) LOOP
    IF bounded AND (spent >= max_cost OR round((spent + own_costs[i]) * 1e6) / 1e6 > max_cost) THEN
      -- The bound would refuse: count exactly, with what this claim reserved so far.
      spent := round((gwrun_run_spent(claim_run, unknown_cost) + reserving) * 1e6) / 1e6;
      bounded := false;
    END IF;
    IF flying >= cap THEN
      outcomes[i] := 'full';
    ELSIF max_cost IS NOT NULL
          AND (spent >= max_cost OR round((spent + own_costs[i]) * 1e6) / 1e6 > max_cost) THEN
      outcomes[i] := 'budget';
    ELSIF NOT COALESCE(claim_keys[i] = ANY(pending_keys), false)
          OR claim_keys[i] = ANY(claim_keys[1:i - 1]) THEN
      -- Taken by another claim, or named twice: claimed once.
      outcomes[i] := 'gone';
    ELSE
      outcomes[i] := 'claimed';
      taken := taken || i;
      flying := flying + 1;
      spent := round((spent + own_costs[i]) * 1e6) / 1e6;
      reserving := reserving + own_costs[i];
    END IF;
  END LOOP;
  WITH moved AS (
    UPDATE jobs j SET state = 'submitting', updated_at = claimed_at, claimed_by = claimer,
      attempts = next_attempts[t.place]
    FROM unnest(taken) AS t(place)
    WHERE j.key = claim_keys[t.place] AND j.key = ANY(pending_keys)
    RETURNING t.place, j.run_id, j.key)
  INSERT INTO events (run_id, at, job_key, type, data)
  SELECT moved.run_id, claimed_at, moved.key, 'job:submitting', NULL FROM moved ORDER BY moved.place;
  IF max_cost IS NOT NULL THEN
    INSERT INTO run_spend_bounds AS b (run_id, bound, unknown_cost)
      VALUES (claim_run, spent, gwrun_claim_tasks.unknown_cost)
      ON CONFLICT (run_id) DO UPDATE SET bound = excluded.bound, unknown_cost = excluded.unknown_cost;
  END IF;
  RETURN QUERY SELECT claim_keys[n], outcomes[n]
    FROM generate_subscripts(claim_keys, 1) AS n ORDER BY n;
END
$function$;

-- A download waits the whole minutes until its nearest link expires, from 0 to a day; links
-- further away, or none, wait a day, as one process's queue counts them (`minutesToExpiry`,
-- src/engine/download.ts). Before, the minutes were rounded to the nearest, and a task whose
-- links had no expiry went first: GREATEST(0, NULL) is 0.
CREATE OR REPLACE FUNCTION gwrun_download_priority(task_key TEXT) RETURNS INTEGER
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN MIN(expires_at) IS NULL THEN 1440
              ELSE LEAST(1440, GREATEST(0,
                     floor((MIN(expires_at) - EXTRACT(EPOCH FROM gwrun_now()) * 1000) / 60000)))::INTEGER
         END
  FROM outputs WHERE job_key = task_key AND state = 'pending'
$$;
