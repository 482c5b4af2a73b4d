-- The trigger that queues a task's work asks which run works it (a read of `run_jobs`) only
-- when there is work to queue. A poll round queues its completed tasks' downloads itself, and
-- a task whose files are all recorded (completed → downloaded) is already in its download job:
-- for both, the trigger asked for nothing but that read, twice a task in every fleet run.
-- The second no longer fires the trigger at all.
CREATE OR REPLACE FUNCTION gwrun_queue_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.placeholder <> 0 THEN
    RETURN NULL;
  END IF;
  IF NEW.state = 'pending' THEN
    IF gwrun_fleet_works(gwrun_working_run(NEW.key, NEW.run_id)) THEN
      PERFORM graphile_worker.add_job('gwrun_submit',
        json_build_object('key', NEW.key), job_key := 'submit:' || NEW.key,
        flags := gwrun_run_flags(NEW.run_id));
    END IF;
  ELSIF (NEW.state = 'completed' OR (NEW.state = 'downloaded' AND TG_OP = 'UPDATE' AND OLD.state <> 'completed'))
        AND current_setting('gwrun.downloads_queued', true) IS DISTINCT FROM 'yes'
        AND gwrun_fleet_works(gwrun_working_run(NEW.key, NEW.run_id)) THEN
    PERFORM gwrun_queue_downloads(ARRAY[NEW.key]);
  END IF;
  RETURN NULL;
END
$$;

DROP TRIGGER jobs_queue_work_moved ON jobs;

CREATE CONSTRAINT TRIGGER jobs_queue_work_moved AFTER UPDATE ON jobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.state IN ('pending', 'completed', 'downloaded')
        AND NOT (OLD.state = 'completed' AND NEW.state = 'downloaded')
        AND (OLD.state IS DISTINCT FROM NEW.state OR OLD.request IS DISTINCT FROM NEW.request))
  EXECUTE FUNCTION gwrun_queue_work();
