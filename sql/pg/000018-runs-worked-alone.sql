-- A run only the process that started it can work (one against the simulator inside that
-- process) is worked by that process's engine: it queues no jobs, and workers leave it alone.
-- Such a run's jobs used to be named for it (`gwrun_submit_run_7`); the names are the kind's
-- again, and the jobs of runs recorded that way go with them.
ALTER TABLE runs ADD COLUMN worked_alone BOOLEAN NOT NULL DEFAULT false;
UPDATE runs SET worked_alone = true WHERE base_url = 'sim';
DELETE FROM graphile_worker._private_jobs q USING graphile_worker._private_tasks t
 WHERE t.id = q.task_id AND t.identifier LIKE 'gwrun\_%\_run\_%';

-- Whether the fleet works the run: its tasks' moves queue its jobs.
CREATE FUNCTION gwrun_fleet_works(run INTEGER) RETURNS BOOLEAN LANGUAGE sql STABLE AS $$
  SELECT NOT COALESCE((SELECT worked_alone FROM runs WHERE id = run), false)
$$;

CREATE OR REPLACE FUNCTION gwrun_queue_downloads(task_keys TEXT[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(task_keys) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW('gwrun_download', json_build_object('key', j.key), NULL,
               NULL, NULL, 'download:' || j.key, gwrun_download_priority(j.key),
               gwrun_run_flags(j.run_id))::graphile_worker.job_spec
    FROM jobs j WHERE j.key = ANY(task_keys) AND j.placeholder = 0
      AND gwrun_fleet_works(gwrun_working_run(j.key, j.run_id))));
END
$$;

CREATE OR REPLACE FUNCTION gwrun_queue_submit_jobs(run INTEGER, task_keys TEXT[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  per_job INTEGER := GREATEST(1, LEAST(10, cardinality(task_keys) / 64));
BEGIN
  IF cardinality(task_keys) = 0 OR NOT gwrun_fleet_works(run) THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW('gwrun_submit',
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

CREATE OR REPLACE FUNCTION gwrun_queue_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.placeholder <> 0 OR NOT gwrun_fleet_works(gwrun_working_run(NEW.key, NEW.run_id)) THEN
    RETURN NULL;
  END IF;
  IF NEW.state = 'pending' THEN
    PERFORM graphile_worker.add_job('gwrun_submit',
      json_build_object('key', NEW.key), job_key := 'submit:' || NEW.key,
      flags := gwrun_run_flags(NEW.run_id));
  ELSIF (NEW.state = 'completed' OR (NEW.state = 'downloaded' AND TG_OP = 'UPDATE' AND OLD.state <> 'completed'))
        AND current_setting('gwrun.downloads_queued', true) IS DISTINCT FROM 'yes' THEN
    PERFORM gwrun_queue_downloads(ARRAY[NEW.key]);
  END IF;
  RETURN NULL;
END
$$;

DROP FUNCTION gwrun_job_name(TEXT, INTEGER);
