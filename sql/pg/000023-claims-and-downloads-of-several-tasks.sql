-- A submit job's tasks claimed in one call: the lock that serialises a run's claims on a lane
-- is taken once for them all, the lane's count and the run's spend read once, and each task
-- still moves only from pending (a task claimed elsewhere meanwhile is 'gone', the others are
-- claimed). Claims one at a time held that lock ten times as often, and were a statement per
-- task. A claim of one task is a call with one key: the function of sql/pg/000010 goes.
CREATE FUNCTION gwrun_claim_tasks(
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
  SELECT COALESCE(sum(CASE WHEN way = 'in' THEN tasks ELSE -tasks END), 0) INTO flying
    FROM lane_flights WHERE run_id = claim_run AND lane = ANY(claim_lanes);
  IF max_cost IS NOT NULL THEN
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

DROP FUNCTION gwrun_claim(TEXT, INTEGER, TEXT[], BIGINT, FLOAT8, FLOAT8, FLOAT8, TEXT, INTEGER, BIGINT);

-- A poll round's completions go in download jobs of up to ten tasks each (a round of eight or
-- more tasks; fewer keep a job each, so a fleet still shares them), earliest link expiry first
-- within a job and by its earliest across jobs. A job per task cost an add, a fetch, a delete
-- and a read of its task per task; a worker runs a job's tasks within its download slots. A job
-- of one task keeps its key ('download:' || task key).
CREATE OR REPLACE FUNCTION gwrun_queue_downloads(task_keys TEXT[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  per_job INTEGER := GREATEST(1, LEAST(10, cardinality(task_keys) / 8));
BEGIN
  IF cardinality(task_keys) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW('gwrun_download',
               CASE WHEN count(*) = 1 THEN json_build_object('key', min(c.key))
                    ELSE json_build_object('keys', json_agg(c.key ORDER BY c.n)) END,
               NULL, NULL, NULL,
               CASE WHEN count(*) = 1 THEN 'download:' || min(c.key) END,
               min(c.priority), gwrun_run_flags(c.run_id))::graphile_worker.job_spec
    FROM (SELECT d.*, (d.n - 1) / per_job AS chunk
            FROM (SELECT j.key, j.run_id, p.priority,
                         row_number() OVER (PARTITION BY j.run_id ORDER BY p.priority, j.key) AS n
                    FROM jobs j CROSS JOIN LATERAL (SELECT gwrun_download_priority(j.key) AS priority) p
                   WHERE j.key = ANY(task_keys) AND j.placeholder = 0
                     AND gwrun_fleet_works(gwrun_working_run(j.key, j.run_id))) d) c
    GROUP BY c.run_id, c.chunk
    ORDER BY min(c.priority)));
END
$$;

-- The task keys waiting in download jobs: a job of one task names it, a larger one lists them.
CREATE FUNCTION gwrun_queued_downloads() RETURNS SETOF TEXT LANGUAGE sql STABLE AS $$
  SELECT COALESCE(q.payload->>'key', k.key)
    FROM graphile_worker._private_jobs q
    JOIN graphile_worker._private_tasks t ON t.id = q.task_id
    LEFT JOIN LATERAL json_array_elements_text(q.payload->'keys') AS k(key) ON true
   WHERE t.identifier = 'gwrun_download'
$$;
