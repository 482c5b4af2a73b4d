-- What is in flight per run and lane, counted as tasks go in and out: a claim reads a few rows
-- instead of counting the run's tasks in flight (thousands, when a task takes minutes) while
-- the claim lock is held. Entries and exits are kept on rows of their own: entries are the
-- claims' (one at a time per run and lane), exits the poll rounds', so neither waits for the
-- other's row lock; a claim reads the exits committed, which can only count too many in flight.
CREATE TABLE lane_flights (
  run_id INTEGER NOT NULL,
  lane TEXT NOT NULL,
  way TEXT NOT NULL CHECK (way IN ('in', 'out')),
  tasks BIGINT NOT NULL,
  PRIMARY KEY (run_id, lane, way)
);

CREATE FUNCTION gwrun_in_flight(state TEXT) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE AS $$
  SELECT state IN ('submitting', 'submitted', 'processing')
$$;

CREATE FUNCTION gwrun_count_flight() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND gwrun_in_flight(OLD.state) THEN
    INSERT INTO lane_flights AS f VALUES (OLD.run_id, OLD.lane, 'out', 1)
      ON CONFLICT (run_id, lane, way) DO UPDATE SET tasks = f.tasks + 1;
  END IF;
  IF TG_OP <> 'DELETE' AND gwrun_in_flight(NEW.state) THEN
    INSERT INTO lane_flights AS f VALUES (NEW.run_id, NEW.lane, 'in', 1)
      ON CONFLICT (run_id, lane, way) DO UPDATE SET tasks = f.tasks + 1;
  END IF;
  RETURN NULL;
END
$$;

-- Counted from what is in flight now, with no move between the count and the triggers.
LOCK TABLE jobs IN SHARE ROW EXCLUSIVE MODE;

INSERT INTO lane_flights (run_id, lane, way, tasks)
  SELECT run_id, lane, 'in', count(*) FROM jobs WHERE gwrun_in_flight(state) GROUP BY 1, 2;

CREATE TRIGGER jobs_flight_inserted AFTER INSERT ON jobs FOR EACH ROW
  WHEN (gwrun_in_flight(NEW.state))
  EXECUTE FUNCTION gwrun_count_flight();

-- A move within flight (submitting → submitted) changes no count.
CREATE TRIGGER jobs_flight_moved AFTER UPDATE OF state, run_id, lane ON jobs FOR EACH ROW
  WHEN ((gwrun_in_flight(OLD.state) OR gwrun_in_flight(NEW.state))
        AND (gwrun_in_flight(OLD.state), OLD.run_id, OLD.lane)
            IS DISTINCT FROM (gwrun_in_flight(NEW.state), NEW.run_id, NEW.lane))
  EXECUTE FUNCTION gwrun_count_flight();

CREATE TRIGGER jobs_flight_deleted AFTER DELETE ON jobs FOR EACH ROW
  WHEN (gwrun_in_flight(OLD.state))
  EXECUTE FUNCTION gwrun_count_flight();

-- The claim of sql/pg/000009, counting by the rows above; the states it no longer takes as
-- parameters are named where it needs them.
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
  SELECT COALESCE(sum(CASE WHEN way = 'in' THEN tasks ELSE -tasks END), 0) INTO flying
    FROM lane_flights WHERE run_id = claim_run AND lane = ANY(claim_lanes);
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
