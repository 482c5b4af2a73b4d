-- Download jobs get a queue of their own: graphile-worker's schema `graphile_worker_downloads`,
-- migrated beside `graphile_worker`, where submit jobs stay. graphile-worker finds a runner's
-- next job by walking its schema's queue in priority order, stepping over the jobs of tasks the
-- runner does not run. With both kinds in one queue, each time a worker's download runner
-- looked for work and found none it stepped over every submit job the run had waiting: 5 ms a
-- look with a 300,000-task run's 30,000 waiting, and the run slowed as it grew.
CREATE OR REPLACE FUNCTION gwrun_queue_downloads(task_keys TEXT[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  per_job INTEGER := GREATEST(1, LEAST(10, cardinality(task_keys) / 8));
BEGIN
  IF cardinality(task_keys) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker_downloads.add_jobs(ARRAY(
    SELECT ROW('gwrun_download',
               CASE WHEN count(*) = 1 THEN json_build_object('key', min(c.key))
                    ELSE json_build_object('keys', json_agg(c.key ORDER BY c.n)) END,
               NULL, NULL, NULL,
               CASE WHEN count(*) = 1 THEN 'download:' || min(c.key) END,
               min(c.priority), gwrun_run_flags(c.run_id))::graphile_worker_downloads.job_spec
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

CREATE OR REPLACE FUNCTION gwrun_queued_downloads() RETURNS SETOF TEXT LANGUAGE sql STABLE AS $$
  SELECT COALESCE(q.payload->>'key', k.key)
    FROM graphile_worker_downloads._private_jobs q
    JOIN graphile_worker_downloads._private_tasks t ON t.id = q.task_id
    LEFT JOIN LATERAL json_array_elements_text(q.payload->'keys') AS k(key) ON true
   WHERE t.identifier = 'gwrun_download'
$$;

-- Download jobs waiting in the shared queue move to their own, as they were. One a worker has
-- taken stays where it is, and is finished there.
SELECT graphile_worker_downloads.add_jobs(ARRAY(
  SELECT ROW(t.identifier, q.payload, NULL, q.run_at, q.max_attempts, q.key, q.priority,
             ARRAY(SELECT jsonb_object_keys(COALESCE(q.flags, '{}'::jsonb))))::graphile_worker_downloads.job_spec
    FROM graphile_worker._private_jobs q JOIN graphile_worker._private_tasks t ON t.id = q.task_id
   WHERE t.identifier = 'gwrun_download' AND q.locked_at IS NULL
   ORDER BY q.id));
DELETE FROM graphile_worker._private_jobs q USING graphile_worker._private_tasks t
 WHERE t.id = q.task_id AND t.identifier = 'gwrun_download' AND q.locked_at IS NULL;
