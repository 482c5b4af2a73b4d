-- A claim within a budget added up what its run had spent from the whole task table, every
-- run's tasks, under the run's lock: 22 ms a claim of ten on a run of 10,000 tasks in a store
-- that also held 100,000 of an earlier run, 109 ms on a run of 300,000. A budgeted fleet run
-- was bound by its claims as the store grew (nightly runs) or the run did.
--
-- A claim now reads a bound kept for its run: at least what the run has spent plus what its
-- tasks in flight reserve. A claim adds what it reserves (its own moves set none of the
-- trigger's columns); a trigger adds any other rise (a cost above its estimate, a failed task
-- polled again); a fall (a failure gives its reservation back) is left in the bound. A claim
-- the bound would refuse counts exactly first, by the run's own tasks (`jobs_spent`), and
-- keeps that count as the new bound: a task is refused for the budget only by an exact count,
-- as before.

CREATE INDEX jobs_spent ON jobs (run_id) INCLUDE (state, cost, estimated_cost)
  WHERE state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing');

CREATE TABLE run_spend_bounds (
  run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  -- At least what the run has spent plus what its tasks in flight reserve; NULL: not known,
  -- the next claim counts.
  bound FLOAT8,
  -- What a task without an estimate reserves, as the claims that kept the bound counted it.
  unknown_cost FLOAT8
);

-- What a task counts against its run's budget: settled, its cost (else its reservation); in
-- flight, its reservation (its estimate, else the run's cost of an unknown); else nothing.
CREATE FUNCTION gwrun_spend_of(state TEXT, cost FLOAT8, estimate FLOAT8, unknown FLOAT8)
RETURNS FLOAT8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN state IN ('completed', 'downloaded', 'done')
                THEN COALESCE(cost, estimate, unknown, 0)
              WHEN state IN ('submitting', 'submitted', 'processing')
                THEN COALESCE(estimate, unknown, 0)
              ELSE 0 END
$$;

-- The run's spend counted exactly, by its own tasks, to a millionth as the port's budget
-- counts. Read by index whatever the run's size when the plan was made.
CREATE FUNCTION gwrun_run_spent(run INTEGER, unknown FLOAT8) RETURNS FLOAT8
LANGUAGE sql STABLE SET enable_seqscan = off AS $$
  SELECT round(COALESCE(SUM(gwrun_spend_of(state, cost, estimated_cost, unknown)), 0) * 1e6) / 1e6
    FROM jobs WHERE run_id = run
      AND state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing')
$$;

-- A rise no claim made, added to the run's bound. It takes the run's lock shared, as the
-- claims within a budget take it alone: a claim counts or reads the bound only while no rise
-- is under way, and a rise lands on what the claim kept.
CREATE FUNCTION gwrun_spend_rose() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('gwrun:claim:' || NEW.run_id));
  UPDATE run_spend_bounds b
     SET bound = b.bound + GREATEST(0,
       gwrun_spend_of(NEW.state, NEW.cost, NEW.estimated_cost, b.unknown_cost)
       - CASE WHEN TG_OP = 'UPDATE' AND OLD.run_id = NEW.run_id
              THEN gwrun_spend_of(OLD.state, OLD.cost, OLD.estimated_cost, b.unknown_cost)
              ELSE 0 END)
   WHERE b.run_id = NEW.run_id AND b.bound IS NOT NULL;
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_spend_inserted AFTER INSERT ON jobs FOR EACH ROW
  WHEN (NEW.state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing'))
  EXECUTE FUNCTION gwrun_spend_rose();
-- Fired by a move that may raise what the task counts, whatever an unknown cost is. Outside a
-- claim, a task enters flight only when a failed one is polled again (src/store/states.ts; its
-- reason is cleared); it settles from flight with a cost; a judgement adds to a settled task's
-- cost; a task recorded again moves to the new run. Each sets a column named here, so the
-- condition is made ready only for the statements that set one (not for each of the moves a
-- task makes through the fleet, where it cost 37 µs a statement).
CREATE TRIGGER jobs_spend_moved AFTER UPDATE OF run_id, cost, estimated_cost, reason ON jobs
  FOR EACH ROW
  WHEN (NEW.state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing')
        AND (OLD.run_id IS DISTINCT FROM NEW.run_id
             OR OLD.estimated_cost IS DISTINCT FROM NEW.estimated_cost
             OR OLD.state NOT IN ('completed', 'downloaded', 'done', 'submitting', 'submitted',
                                  'processing')
             OR (OLD.state IN ('submitting', 'submitted', 'processing')
                 AND NEW.state IN ('completed', 'downloaded', 'done') AND NEW.cost IS NOT NULL
                 AND (OLD.estimated_cost IS NULL OR NEW.cost > OLD.estimated_cost))
             OR (OLD.state IN ('completed', 'downloaded', 'done')
                 AND (OLD.cost IS DISTINCT FROM NEW.cost
                      OR NEW.state IN ('submitting', 'submitted', 'processing')))))
  EXECUTE FUNCTION gwrun_spend_rose();

-- A claim decides each task in turn (the lane's cap, then the budget), then moves those it
-- claims in one statement: a statement a task was nearly half of a claim's time (1.4 ms a
-- claim of ten, 0.8 ms now).
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
       AND state IN ('submitting', 'submitted', 'processing')
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
$$;
