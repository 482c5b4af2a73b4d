-- The flight triggers of sql/pg/000010 with their conditions written out. PostgreSQL prepares
-- a trigger's WHEN anew for every statement that fires it, and a call of `gwrun_in_flight`
-- there meant parsing and inlining the function's body each time: every move of every task
-- paid for it (about a twelfth of the server's work in a 10,000-task run).
DROP TRIGGER jobs_flight_inserted ON jobs;
DROP TRIGGER jobs_flight_moved ON jobs;
DROP TRIGGER jobs_flight_deleted ON jobs;

CREATE TRIGGER jobs_flight_inserted AFTER INSERT ON jobs FOR EACH ROW
  WHEN (NEW.state IN ('submitting', 'submitted', 'processing'))
  EXECUTE FUNCTION gwrun_count_flight();

-- A move within flight (submitting → submitted) changes no count.
CREATE TRIGGER jobs_flight_moved AFTER UPDATE OF state, run_id, lane ON jobs FOR EACH ROW
  WHEN ((OLD.state IN ('submitting', 'submitted', 'processing')
         OR NEW.state IN ('submitting', 'submitted', 'processing'))
        AND (OLD.state IN ('submitting', 'submitted', 'processing'), OLD.run_id, OLD.lane)
            IS DISTINCT FROM (NEW.state IN ('submitting', 'submitted', 'processing'), NEW.run_id, NEW.lane))
  EXECUTE FUNCTION gwrun_count_flight();

CREATE TRIGGER jobs_flight_deleted AFTER DELETE ON jobs FOR EACH ROW
  WHEN (OLD.state IN ('submitting', 'submitted', 'processing'))
  EXECUTE FUNCTION gwrun_count_flight();
