-- A task's request (the body as sent, megabytes when pictures are inlined) is kept beside its
-- row, not in it, as SQLite keeps it (sql/000018): every move of a task writes a new version of
-- its row, which then no longer carries the request.
CREATE TABLE task_requests (
  key TEXT PRIMARY KEY,
  request TEXT NOT NULL
);
INSERT INTO task_requests (key, request) SELECT key, request FROM jobs ORDER BY place;

-- A pending task's request bound anew (its upstream's link, say) asks for its submit again, as
-- the move of its row did when the request was one of its columns.
DROP TRIGGER jobs_queue_work_moved ON jobs;
CREATE CONSTRAINT TRIGGER jobs_queue_work_moved AFTER UPDATE ON jobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.state IN ('pending', 'completed', 'downloaded')
        AND NOT (OLD.state = 'completed' AND NEW.state = 'downloaded')
        AND OLD.state IS DISTINCT FROM NEW.state)
  EXECUTE FUNCTION gwrun_queue_work();

CREATE FUNCTION gwrun_queue_rebound() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  task jobs%ROWTYPE;
BEGIN
  SELECT * INTO task FROM jobs WHERE key = NEW.key;
  IF FOUND AND task.state = 'pending' AND task.placeholder = 0
     AND gwrun_fleet_works(gwrun_working_run(task.key, task.run_id)) THEN
    PERFORM graphile_worker.add_job('gwrun_submit',
      json_build_object('key', task.key), job_key := 'submit:' || task.key,
      flags := gwrun_run_flags(task.run_id));
  END IF;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER task_requests_rebound AFTER UPDATE ON task_requests
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.request IS DISTINCT FROM NEW.request)
  EXECUTE FUNCTION gwrun_queue_rebound();

ALTER TABLE jobs DROP COLUMN request;
