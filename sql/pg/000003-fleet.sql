-- A fleet: several worker processes, on several hosts, working the runs of one store.
-- graphile-worker (its own schema, migrated first) dispatches the work; its jobs are added by
-- the triggers below, in the same transaction as the task move that causes them.

-- One row per worker process (`gwrun worker`, or `gwrun run` working its own run).
CREATE TABLE workers (
  id TEXT PRIMARY KEY,             -- pid@host: the owner its claims name
  name TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  -- graphile-worker pool ids: the jobs they hold are freed when the worker is found dead.
  pool_ids TEXT[] NOT NULL DEFAULT '{}',
  started_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
  stopped_at TIMESTAMPTZ,          -- left cleanly
  dead_at TIMESTAMPTZ              -- found dead by a reaper: its claims were resolved
);

-- A task id the gateway gave a worker whose claim had been taken over meanwhile (it was
-- partitioned, presumed dead): kept, since it may be a paid task.
CREATE TABLE orphan_tasks (
  task_id TEXT PRIMARY KEY,
  job_key TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  received_at BIGINT NOT NULL
);

-- The manifest as checked when the run was recorded (environment references read, the key
-- left out), so a worker needs neither the file nor its environment; and why the run's
-- submits stopped (budget, balance, interrupted), which every worker obeys.
ALTER TABLE runs ADD COLUMN resolved_manifest TEXT;
ALTER TABLE runs ADD COLUMN halt TEXT;

-- Claims count what is in flight per run and lane; the poll leader reads what the gateway
-- holds; the reaper finds a dead worker's claims.
CREATE INDEX jobs_in_flight ON jobs (run_id, lane) WHERE state IN ('submitting', 'submitted', 'processing');
CREATE INDEX jobs_claimed ON jobs (claimed_by) WHERE state = 'submitting';

-- Earliest link expiry first across the fleet: graphile-worker runs the smallest priority
-- first, so a download's priority is the minutes its first link has left (0..1440).
CREATE FUNCTION gwrun_download_priority(task_key TEXT) RETURNS INTEGER LANGUAGE sql STABLE AS $$
  SELECT COALESCE(
    LEAST(1440, GREATEST(0, ((MIN(expires_at) - EXTRACT(EPOCH FROM clock_timestamp()) * 1000) / 60000)::INTEGER)),
    1440)
  FROM outputs WHERE job_key = task_key AND state = 'pending'
$$;

-- A pending task is a submit job (its key dedupes it); a task whose outputs wait is a download
-- job. Deferred to the commit, so the outputs recorded with a completion are there to read.
CREATE FUNCTION gwrun_queue_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.placeholder <> 0 THEN
    RETURN NULL;
  END IF;
  IF NEW.state = 'pending' THEN
    PERFORM graphile_worker.add_job('gwrun_submit', json_build_object('key', NEW.key),
      job_key := 'submit:' || NEW.key, flags := gwrun_run_flags(NEW.run_id));
  ELSIF NEW.state = 'completed' OR (NEW.state = 'downloaded' AND TG_OP = 'UPDATE' AND OLD.state <> 'completed') THEN
    PERFORM graphile_worker.add_job('gwrun_download', json_build_object('key', NEW.key),
      job_key := 'download:' || NEW.key, priority := gwrun_download_priority(NEW.key),
      flags := gwrun_run_flags(NEW.run_id));
  END IF;
  RETURN NULL;
END
$$;

-- Every job names its run: a worker of one run (--run), or a run against the simulator inside
-- one process (worked by that process only), leaves the others' jobs alone.
CREATE FUNCTION gwrun_run_flags(run INTEGER) RETURNS TEXT[] LANGUAGE sql STABLE AS $$
  SELECT ARRAY['run:' || run]
$$;

CREATE CONSTRAINT TRIGGER jobs_queue_work_inserted AFTER INSERT ON jobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.state IN ('pending', 'completed', 'downloaded'))
  EXECUTE FUNCTION gwrun_queue_work();

CREATE CONSTRAINT TRIGGER jobs_queue_work_moved AFTER UPDATE ON jobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.state IN ('pending', 'completed', 'downloaded')
        AND (OLD.state IS DISTINCT FROM NEW.state OR OLD.request IS DISTINCT FROM NEW.request))
  EXECUTE FUNCTION gwrun_queue_work();

-- Which store this is: `run` writes it into the output folder, and a worker that cannot read
-- it there (the shared folder is not mounted on its host) refuses to start.
CREATE TABLE store_identity (id TEXT NOT NULL);
INSERT INTO store_identity VALUES (md5(random()::text || clock_timestamp()::text));
