-- A link's minutes left are bounded before they are cast to an INTEGER. A link dated more than
-- about 4,000 years ahead (a gateway that gives its expiry in milliseconds where the contract
-- says seconds gives one 50,000 years ahead) overflowed the cast: the poll round that
-- completed its task failed, and failed again each round, so the fleet polled on and nothing
-- moved.
CREATE OR REPLACE FUNCTION gwrun_download_priority(task_key TEXT) RETURNS INTEGER
LANGUAGE sql STABLE AS $$
  SELECT COALESCE(
    LEAST(1440, GREATEST(0, (MIN(expires_at) - EXTRACT(EPOCH FROM gwrun_now()) * 1000) / 60000))::INTEGER,
    1440)
  FROM outputs WHERE job_key = task_key AND state = 'pending'
$$;
