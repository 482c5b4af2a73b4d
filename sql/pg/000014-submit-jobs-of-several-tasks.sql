-- A large run's submit jobs carry up to ten tasks each, done one after another. One job per
-- task left tens of thousands of rows in graphile-worker's queue, which every fetch of a
-- download job read past (they come after submits in its order), and cost an add, a fetch and
-- a delete per task. A run of fewer than 128 tasks keeps one task per job, so a fleet still
-- shares a small run; a job of one task keeps its key ('submit:' || task key).
CREATE FUNCTION gwrun_queue_submit_jobs(run INTEGER, task_keys TEXT[]) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
  per_job INTEGER := GREATEST(1, LEAST(10, cardinality(task_keys) / 64));
BEGIN
  IF cardinality(task_keys) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW(gwrun_job_name('gwrun_submit', run),
               CASE WHEN per_job = 1 THEN json_build_object('key', min(c.key))
                    ELSE json_build_object('keys', json_agg(c.key ORDER BY c.n)) END,
               NULL, NULL, NULL,
               CASE WHEN per_job = 1 THEN 'submit:' || min(c.key) END,
               NULL, gwrun_run_flags(c.run_id))::graphile_worker.job_spec
    FROM (SELECT k.key, k.n, j.run_id, (k.n - 1) / per_job AS chunk
            FROM unnest(task_keys) WITH ORDINALITY AS k(key, n) JOIN jobs j ON j.key = k.key) c
    GROUP BY c.chunk, c.run_id
    ORDER BY min(c.n)));
END
$$;

CREATE OR REPLACE FUNCTION gwrun_queue_submits() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  recording INTEGER;
BEGIN
  FOR recording IN SELECT DISTINCT t.run_id FROM inserted t LOOP
    PERFORM gwrun_queue_submit_jobs(recording, ARRAY(
      SELECT t.key FROM inserted t
      WHERE t.run_id = recording AND t.state = 'pending' AND t.placeholder = 0
      ORDER BY t.place));
  END LOOP;
  RETURN NULL;
END
$$;

-- The task keys waiting in submit jobs: a job of one task names it, a larger one lists them
-- (the payload is in graphile-worker's table; its public view leaves it out).
CREATE FUNCTION gwrun_queued_submits() RETURNS SETOF TEXT LANGUAGE sql STABLE AS $$
  SELECT COALESCE(q.payload->>'key', k.key)
    FROM graphile_worker._private_jobs q
    JOIN graphile_worker._private_tasks t ON t.id = q.task_id
    LEFT JOIN LATERAL json_array_elements_text(q.payload->'keys') AS k(key) ON true
   WHERE t.identifier LIKE 'gwrun_submit%'
$$;
