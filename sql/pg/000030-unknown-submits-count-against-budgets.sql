-- A submit whose outcome is unknown (a reset after sending, a 5xx) may have made and billed its
-- task, and the gateway names tasks only in its answer: a held task, or one sent again, may be
-- paid once more than its record shows. Each such submit (`unknown_submits`, now recorded on a
-- failure too) counts the task's reservation against its run's budget, as the engine's
-- `Admission` counts it: `max_cost` holds whatever those submits turn out to have cost.

CREATE FUNCTION gwrun_spend_of(
  state TEXT, cost FLOAT8, estimate FLOAT8, unknown FLOAT8, unknown_submits INTEGER
) RETURNS FLOAT8 LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN state IN ('completed', 'downloaded', 'done')
                THEN COALESCE(cost, estimate, unknown, 0)
              WHEN state IN ('submitting', 'submitted', 'processing')
                THEN COALESCE(estimate, unknown, 0)
              ELSE 0 END
         + COALESCE(estimate, unknown, 0) * unknown_submits
$$;

DROP INDEX jobs_spent;
CREATE INDEX jobs_spent ON jobs (run_id) INCLUDE (state, cost, estimated_cost, unknown_submits)
  WHERE state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing')
     OR unknown_submits > 0;

CREATE OR REPLACE FUNCTION gwrun_run_spent(run INTEGER, unknown FLOAT8) RETURNS FLOAT8
LANGUAGE sql STABLE SET enable_seqscan = off AS $$
  SELECT round(COALESCE(SUM(gwrun_spend_of(state, cost, estimated_cost, unknown,
                                           unknown_submits)), 0) * 1e6) / 1e6
    FROM jobs WHERE run_id = run
      AND (state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing')
           OR unknown_submits > 0)
$$;

CREATE OR REPLACE FUNCTION gwrun_spend_rose() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(hashtext('gwrun:claim:' || NEW.run_id));
  UPDATE run_spend_bounds b
     SET bound = b.bound + GREATEST(0,
       gwrun_spend_of(NEW.state, NEW.cost, NEW.estimated_cost, b.unknown_cost, NEW.unknown_submits)
       - CASE WHEN TG_OP = 'UPDATE' AND OLD.run_id = NEW.run_id
              THEN gwrun_spend_of(OLD.state, OLD.cost, OLD.estimated_cost, b.unknown_cost,
                                  OLD.unknown_submits)
              ELSE 0 END)
   WHERE b.run_id = NEW.run_id AND b.bound IS NOT NULL;
  RETURN NULL;
END
$$;

DROP FUNCTION gwrun_spend_of(TEXT, FLOAT8, FLOAT8, FLOAT8);

DROP TRIGGER jobs_spend_inserted ON jobs;
CREATE TRIGGER jobs_spend_inserted AFTER INSERT ON jobs FOR EACH ROW
  WHEN (NEW.state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted', 'processing')
        OR NEW.unknown_submits > 0)
  EXECUTE FUNCTION gwrun_spend_rose();

-- As in 000029, and an unknown submit counted: a receipt, a claim given back or a failure
-- that counts one (each sets `unknown_submits`; a receipt sets it unchanged, which the
-- condition lets by).
DROP TRIGGER jobs_spend_moved ON jobs;
CREATE TRIGGER jobs_spend_moved
  AFTER UPDATE OF run_id, cost, estimated_cost, reason, unknown_submits ON jobs
  FOR EACH ROW
  WHEN (NEW.unknown_submits > OLD.unknown_submits
        OR (NEW.unknown_submits > 0 AND OLD.run_id IS DISTINCT FROM NEW.run_id)
        OR (NEW.state IN ('completed', 'downloaded', 'done', 'submitting', 'submitted',
                          'processing')
            AND (OLD.run_id IS DISTINCT FROM NEW.run_id
                 OR OLD.estimated_cost IS DISTINCT FROM NEW.estimated_cost
                 OR OLD.state NOT IN ('completed', 'downloaded', 'done', 'submitting',
                                      'submitted', 'processing')
                 OR (OLD.state IN ('submitting', 'submitted', 'processing')
                     AND NEW.state IN ('completed', 'downloaded', 'done') AND NEW.cost IS NOT NULL
                     AND (OLD.estimated_cost IS NULL OR NEW.cost > OLD.estimated_cost))
                 OR (OLD.state IN ('completed', 'downloaded', 'done')
                     AND (OLD.cost IS DISTINCT FROM NEW.cost
                          OR NEW.state IN ('submitting', 'submitted', 'processing'))))))
  EXECUTE FUNCTION gwrun_spend_rose();
