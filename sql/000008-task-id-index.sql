-- A receipt's task id is looked up before it is recorded: a gateway answering two submits with
-- one id must not have both tasks take the one result.
CREATE INDEX jobs_by_task_id ON jobs (task_id) WHERE task_id IS NOT NULL;
