-- Recording a run inserts its tasks in one statement: their submit jobs are added in one
-- add_jobs call rather than one add_job per row (a 10,000-task run took seconds to record).
DROP TRIGGER jobs_queue_work_inserted ON jobs;

CREATE CONSTRAINT TRIGGER jobs_queue_work_inserted AFTER INSERT ON jobs
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (NEW.state IN ('completed', 'downloaded'))
  EXECUTE FUNCTION gwrun_queue_work();

CREATE FUNCTION gwrun_queue_submits() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW('gwrun_submit', json_build_object('key', t.key), NULL, NULL, NULL,
               'submit:' || t.key, NULL, gwrun_run_flags(t.run_id))::graphile_worker.job_spec
    FROM inserted t WHERE t.state = 'pending' AND t.placeholder = 0));
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_queue_submits AFTER INSERT ON jobs
  REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT
  EXECUTE FUNCTION gwrun_queue_submits();
