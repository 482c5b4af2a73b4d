-- A poll round queues the downloads of the tasks it completed in one add_jobs call: one
-- add_job per completed task (from the row trigger, at commit) was the largest part of the
-- database's work per task after the claim. A transaction that queues its downloads itself says
-- so with `gwrun.downloads_queued` (set_config, local to it); every other move keeps the trigger.
--
-- A job's task name says who may take it: a run against the simulator inside one process has
-- jobs named for it (`gwrun_submit_run_7`), which only that process lists, so the other workers
-- need no forbidden flags for it and fetch their jobs in batches.
CREATE FUNCTION gwrun_job_name(kind TEXT, run INTEGER) RETURNS TEXT LANGUAGE sql STABLE AS $$
  SELECT kind || COALESCE((SELECT '_run_' || id FROM runs WHERE id = run AND base_url = 'sim'), '')
$$;

-- The run working a task now: the latest whose scope holds it (a resumed run holds tasks an
-- earlier run recorded).
CREATE FUNCTION gwrun_working_run(task_key TEXT, recorded_by INTEGER) RETURNS INTEGER
LANGUAGE sql STABLE AS $$
  SELECT COALESCE((SELECT max(run_id) FROM run_jobs WHERE key = task_key), recorded_by)
$$;

CREATE OR REPLACE FUNCTION gwrun_queue_submits() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW(gwrun_job_name('gwrun_submit', t.run_id), json_build_object('key', t.key), NULL,
               NULL, NULL, 'submit:' || t.key, NULL, gwrun_run_flags(t.run_id))::graphile_worker.job_spec
    FROM inserted t WHERE t.state = 'pending' AND t.placeholder = 0));
  RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION gwrun_queue_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.placeholder <> 0 THEN
    RETURN NULL;
  END IF;
  IF NEW.state = 'pending' THEN
    PERFORM graphile_worker.add_job(gwrun_job_name('gwrun_submit', gwrun_working_run(NEW.key, NEW.run_id)),
      json_build_object('key', NEW.key), job_key := 'submit:' || NEW.key,
      flags := gwrun_run_flags(NEW.run_id));
  ELSIF (NEW.state = 'completed' OR (NEW.state = 'downloaded' AND TG_OP = 'UPDATE' AND OLD.state <> 'completed'))
        AND current_setting('gwrun.downloads_queued', true) IS DISTINCT FROM 'yes' THEN
    PERFORM gwrun_queue_downloads(ARRAY[NEW.key]);
  END IF;
  RETURN NULL;
END
$$;

-- Download jobs for these tasks, earliest link expiry first (see gwrun_download_priority).
CREATE FUNCTION gwrun_queue_downloads(task_keys TEXT[]) RETURNS VOID LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(task_keys) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW(gwrun_job_name('gwrun_download', gwrun_working_run(j.key, j.run_id)),
               json_build_object('key', j.key), NULL,
               NULL, NULL, 'download:' || j.key, gwrun_download_priority(j.key),
               gwrun_run_flags(j.run_id))::graphile_worker.job_spec
    FROM jobs j WHERE j.key = ANY(task_keys) AND j.placeholder = 0));
END
$$;
