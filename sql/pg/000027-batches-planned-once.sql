-- A worker's receipts, and the files and checks its downloads recorded, go through functions
-- that plan their statement once per connection. Sent as statements, they were planned afresh
-- on every call: the files and checks on purpose (a plan kept from when a run had few outputs
-- read the whole outputs table for each batch once there were thousands), the receipts because
-- PostgreSQL kept choosing custom plans (the keys' arrays make a plan for two receipts look
-- cheaper than one for any number). Planning took longer than running them: 0.55 ms a call of
-- receipts, 0.3 ms of files, a fifth of the server's work in a 10,000-task fleet run. The plan
-- each function keeps reads its rows by index for the keys it is given (each table read names
-- them as an array, and no sequential scan is left to choose), whatever the tables' size when
-- it was made. Each is one statement, as before.

-- Each receipt moves its task only while its claimer still holds it (a compare-and-set); one
-- it did not move is kept (an orphan) or refused (a duplicate of a task id another task holds).
CREATE FUNCTION gwrun_record_receipts(
  receiver TEXT,
  received_at BIGINT,
  given JSONB,            -- each receipt: key, state and the receipt's columns
  given_keys TEXT[],
  given_task_ids TEXT[]
) RETURNS TABLE (task_key TEXT, moved BOOLEAN, duplicate_of TEXT)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH g AS (
    SELECT * FROM jsonb_populate_recordset(NULL::jobs, given) WITH ORDINALITY AS g),
  duplicate AS (
    SELECT DISTINCT ON (key) key, label FROM (
      SELECT g.key, other.label, 0 AS rank FROM g
        JOIN jobs other ON other.task_id = g.task_id AND other.key <> g.key
          AND other.task_id = ANY(given_task_ids)
      UNION ALL
      SELECT g.key, other.label, 1 FROM g
        JOIN g earlier ON earlier.task_id = g.task_id AND earlier.ordinality < g.ordinality
        JOIN jobs other ON other.key = earlier.key AND other.key = ANY(given_keys)) held
    ORDER BY key, rank),
  moved AS (
    UPDATE jobs j SET state = g.state, updated_at = received_at, submitted_by = receiver,
      task_id = g.task_id, submitted_at = g.submitted_at, next_poll_at = g.next_poll_at,
      claimed_by = g.claimed_by, unknown_submits = g.unknown_submits, paid_run = g.paid_run
    FROM g WHERE j.key = ANY(given_keys) AND j.key = g.key
      AND j.state = 'submitting' AND j.claimed_by = receiver
      AND NOT EXISTS (SELECT 1 FROM duplicate d WHERE d.key = g.key)
    RETURNING j.run_id, j.key, j.state),
  logged AS (INSERT INTO events (run_id, at, job_key, type, data)
    SELECT run_id, received_at, key, 'job:' || state, NULL FROM moved),
  kept AS (
    INSERT INTO orphan_tasks (task_id, job_key, worker_id, received_at)
    SELECT g.task_id, g.key, receiver, received_at FROM g
    WHERE NOT EXISTS (SELECT 1 FROM moved m WHERE m.key = g.key)
      AND NOT EXISTS (SELECT 1 FROM duplicate d WHERE d.key = g.key)
    ON CONFLICT (task_id) DO NOTHING)
  SELECT g.key, EXISTS (SELECT 1 FROM moved m WHERE m.key = g.key),
    (SELECT d.label FROM duplicate d WHERE d.key = g.key)
  FROM g;
END
$$;

-- Files on disk: each output marked downloaded while pending, and its task moved on once every
-- output it has is (the statement's parts see the outputs as they were before it, so a file
-- marked in it counts as downloaded). Rows: each output marked (key, index), then each task
-- moved (key, no index).
CREATE FUNCTION gwrun_mark_downloads(
  move_to TEXT,
  moved_at BIGINT,
  move_from TEXT[],
  file_keys TEXT[],
  file_idxs INTEGER[],
  file_paths TEXT[],
  file_bytes BIGINT[],
  file_sha256s TEXT[],
  file_types TEXT[],
  file_times BIGINT[]
) RETURNS TABLE (task_key TEXT, output_idx INTEGER) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH given AS (
    SELECT * FROM unnest(file_keys, file_idxs, file_paths, file_bytes, file_sha256s, file_types,
      file_times) AS g(key, idx, path, bytes, sha256, content_type, downloaded_at)),
  marked AS (
    UPDATE outputs o SET state = 'downloaded', path = g.path, bytes = g.bytes,
      sha256 = g.sha256, content_type = g.content_type, downloaded_at = g.downloaded_at
    FROM given g WHERE o.job_key = ANY(file_keys) AND o.job_key = g.key AND o.idx = g.idx
      AND o.state = 'pending'
    RETURNING o.job_key, o.idx),
  moved AS (
    UPDATE jobs j SET state = move_to, updated_at = moved_at
    WHERE j.key = ANY(file_keys) AND j.key IN (SELECT job_key FROM marked)
      AND j.state = ANY(move_from)
      AND NOT EXISTS (
        SELECT 1 FROM outputs o WHERE o.job_key = ANY(file_keys) AND o.job_key = j.key
          AND o.state <> 'downloaded'
          AND NOT EXISTS (SELECT 1 FROM marked m WHERE m.job_key = o.job_key AND m.idx = o.idx))
    RETURNING j.run_id, j.key),
  logged AS (INSERT INTO events (run_id, at, job_key, type, data)
    SELECT run_id, moved_at, key, 'job:' || move_to, NULL FROM moved)
  SELECT job_key, idx FROM marked UNION ALL SELECT key, NULL FROM moved;
END
$$;

-- Checks kept on their outputs, and the tasks whose checks all passed moved on (done).
CREATE FUNCTION gwrun_keep_checks(
  move_to TEXT,
  moved_at BIGINT,
  move_from TEXT[],
  passed TEXT[],
  check_keys TEXT[],
  check_idxs INTEGER[],
  check_states TEXT[],
  check_texts TEXT[],
  check_thumbnails TEXT[],
  check_posters TEXT[]
) RETURNS TABLE (task_key TEXT) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH given AS (
    SELECT * FROM unnest(check_keys, check_idxs, check_states, check_texts, check_thumbnails,
      check_posters) AS g(key, idx, check_state, checks, thumbnail, poster)),
  kept AS (
    UPDATE outputs o SET check_state = g.check_state, checks = g.checks,
      thumbnail = g.thumbnail, poster = g.poster
    FROM given g WHERE o.job_key = ANY(check_keys) AND o.job_key = g.key AND o.idx = g.idx),
  moved AS (
    UPDATE jobs SET state = move_to, updated_at = moved_at, done_at = moved_at
    WHERE key = ANY(passed) AND state = ANY(move_from)
    RETURNING run_id, key),
  logged AS (INSERT INTO events (run_id, at, job_key, type, data)
    SELECT run_id, moved_at, key, 'job:' || move_to, NULL FROM moved)
  SELECT key FROM moved;
END
$$;
