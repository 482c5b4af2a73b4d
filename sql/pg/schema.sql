-- The PostgreSQL store's schema as the migrations in this folder leave it: tables, then
-- functions and triggers with their current bodies. Written by `npm run schema:pg`; do not edit
-- (a change is a new numbered migration). Read it to see what the store is; it is not run.

-- Tables

CREATE TABLE budgets (
  scope text NOT NULL,
  amount double precision NOT NULL,
  per text NOT NULL,
  timezone text NOT NULL,
  warn_at double precision,
  set_at bigint NOT NULL,
  CONSTRAINT budgets_pkey PRIMARY KEY (scope),
  CONSTRAINT budgets_per_check CHECK ((per = ANY (ARRAY['day'::text, 'week'::text, 'month'::text])))
);

CREATE TABLE events (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  run_id integer,
  at bigint NOT NULL,
  job_key text,
  type text NOT NULL,
  data text,
  CONSTRAINT events_pkey PRIMARY KEY (id)
);
CREATE INDEX events_by_job ON public.events USING btree (job_key);
CREATE INDEX events_by_run ON public.events USING btree (run_id);
CREATE INDEX events_notices_by_run ON public.events USING btree (run_id, id) WHERE (job_key IS NULL);

CREATE TABLE gateway_pace (
  account text NOT NULL,
  rate double precision NOT NULL,
  ceiling double precision NOT NULL,
  announced double precision,
  next_at timestamp with time zone NOT NULL DEFAULT gwrun_now(),
  paused_until timestamp with time zone,
  successes integer NOT NULL DEFAULT 0,
  sustained double precision NOT NULL DEFAULT 0,
  epoch bigint NOT NULL DEFAULT 0,
  updated_at timestamp with time zone NOT NULL DEFAULT gwrun_now(),
  busy_since timestamp with time zone,
  limit_told double precision,
  limit_until timestamp with time zone,
  limited_at timestamp with time zone,
  through_since integer NOT NULL DEFAULT 0,
  queries_count boolean NOT NULL DEFAULT false,
  queried_at timestamp with time zone,
  CONSTRAINT gateway_pace_pkey PRIMARY KEY (account),
  CONSTRAINT gateway_pace_ceiling_check CHECK ((ceiling > (0)::double precision)),
  CONSTRAINT gateway_pace_rate_check CHECK ((rate > (0)::double precision))
);

CREATE TABLE gateway_state (
  base_url text NOT NULL,
  submit_rate double precision,
  CONSTRAINT gateway_state_pkey PRIMARY KEY (base_url)
);

CREATE TABLE gwrun_clock (
  one boolean NOT NULL DEFAULT true,
  shift interval NOT NULL DEFAULT '00:00:00'::interval,
  CONSTRAINT gwrun_clock_pkey PRIMARY KEY (one),
  CONSTRAINT gwrun_clock_one_check CHECK (one)
);

CREATE TABLE jobs (
  key text NOT NULL,
  place bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  run_id integer NOT NULL,
  job_id text NOT NULL,
  label text NOT NULL,
  family text,
  lane text NOT NULL,
  endpoint text NOT NULL,
  upstream_key text,
  state text NOT NULL,
  task_id text,
  attempts integer NOT NULL DEFAULT 0,
  unknown_submits integer NOT NULL DEFAULT 0,
  claimed_by text,
  progress integer,
  polls integer NOT NULL DEFAULT 0,
  next_poll_at bigint,
  estimated_cost double precision,
  cost double precision,
  reason text,
  created_at bigint NOT NULL,
  submitted_at bigint,
  started_at bigint,
  completed_at bigint,
  done_at bigint,
  updated_at bigint NOT NULL,
  placeholder integer NOT NULL DEFAULT 0,
  vars text,
  repeat_index integer NOT NULL DEFAULT 0,
  take integer NOT NULL DEFAULT 1,
  submitted_by text,
  paid_run integer,
  CONSTRAINT jobs_place_key UNIQUE (place),
  CONSTRAINT jobs_pkey PRIMARY KEY (key),
  CONSTRAINT jobs_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id)
);
CREATE INDEX jobs_by_label ON public.jobs USING btree (job_id, label);
CREATE INDEX jobs_by_submitted_at ON public.jobs USING btree (submitted_at) WHERE (submitted_at IS NOT NULL);
CREATE INDEX jobs_by_task_id ON public.jobs USING btree (task_id) WHERE (task_id IS NOT NULL);
CREATE INDEX jobs_by_upstream ON public.jobs USING btree (upstream_key);
CREATE INDEX jobs_claimed ON public.jobs USING btree (claimed_by) WHERE (state = 'submitting'::text);
CREATE INDEX jobs_failed ON public.jobs USING btree (key) WHERE (state = ANY (ARRAY['failed'::text, 'rejected'::text, 'expired'::text, 'skipped'::text]));
CREATE INDEX jobs_in_flight ON public.jobs USING btree (run_id, lane) WHERE (state = ANY (ARRAY['submitting'::text, 'submitted'::text, 'processing'::text]));
CREATE INDEX jobs_of_runs ON public.jobs USING btree (key) INCLUDE (state, job_id, family, label, placeholder, updated_at, created_at, done_at, cost, paid_run, place);
CREATE INDEX jobs_spent ON public.jobs USING btree (run_id) INCLUDE (state, cost, estimated_cost, unknown_submits) WHERE ((state = ANY (ARRAY['completed'::text, 'downloaded'::text, 'done'::text, 'submitting'::text, 'submitted'::text, 'processing'::text])) OR (unknown_submits > 0));
CREATE INDEX jobs_submitting ON public.jobs USING btree (key) WHERE (state = 'submitting'::text);

CREATE TABLE judgements (
  job_key text NOT NULL,
  idx integer NOT NULL,
  state text NOT NULL,
  model text NOT NULL,
  verdict text,
  reason text,
  answer text,
  cost double precision,
  asked_at bigint NOT NULL,
  judged_at bigint,
  CONSTRAINT judgements_pkey PRIMARY KEY (job_key, idx),
  CONSTRAINT judgements_job_key_fkey FOREIGN KEY (job_key) REFERENCES jobs(key),
  CONSTRAINT judgements_state_check CHECK ((state = ANY (ARRAY['asking'::text, 'judged'::text]))),
  CONSTRAINT judgements_verdict_check CHECK ((verdict = ANY (ARRAY['pass'::text, 'fail'::text, 'undecided'::text])))
);

CREATE TABLE leases (
  name text NOT NULL,
  holder text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  acquired_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  CONSTRAINT leases_pkey PRIMARY KEY (name)
);

CREATE TABLE migrations (
  version integer NOT NULL,
  name text NOT NULL,
  applied_at bigint NOT NULL,
  CONSTRAINT migrations_pkey PRIMARY KEY (version)
);

CREATE TABLE orphan_tasks (
  task_id text NOT NULL,
  job_key text NOT NULL,
  worker_id text NOT NULL,
  received_at bigint NOT NULL,
  CONSTRAINT orphan_tasks_pkey PRIMARY KEY (task_id)
);

CREATE TABLE output_copies (
  job_key text NOT NULL,
  idx integer NOT NULL,
  output_dir text NOT NULL,
  path text NOT NULL,
  thumbnail text,
  poster text,
  copied_at bigint NOT NULL,
  CONSTRAINT output_copies_pkey PRIMARY KEY (job_key, idx, output_dir),
  CONSTRAINT output_copies_job_key_fkey FOREIGN KEY (job_key) REFERENCES jobs(key)
);
CREATE INDEX output_copies_by_path ON public.output_copies USING btree (path);

CREATE TABLE outputs (
  job_key text NOT NULL,
  idx integer NOT NULL,
  url text,
  expires_at bigint,
  state text NOT NULL,
  path text,
  bytes bigint,
  sha256 text,
  content_type text,
  reason text,
  check_state text,
  checks text,
  thumbnail text,
  poster text,
  downloaded_at bigint,
  CONSTRAINT outputs_pkey PRIMARY KEY (job_key, idx),
  CONSTRAINT outputs_job_key_fkey FOREIGN KEY (job_key) REFERENCES jobs(key)
);
CREATE INDEX outputs_by_path ON public.outputs USING btree (path) WHERE (path IS NOT NULL);
CREATE INDEX outputs_by_state ON public.outputs USING btree (job_key, state);

CREATE TABLE publications (
  job_key text NOT NULL,
  idx integer NOT NULL,
  target text NOT NULL,
  part text NOT NULL,
  object_key text NOT NULL,
  bytes bigint NOT NULL,
  sha256 text NOT NULL,
  etag text NOT NULL,
  published_at bigint NOT NULL,
  CONSTRAINT publications_pkey PRIMARY KEY (job_key, idx, target, part),
  CONSTRAINT publications_job_key_fkey FOREIGN KEY (job_key) REFERENCES jobs(key)
);

CREATE TABLE reviews (
  job_key text NOT NULL,
  idx integer NOT NULL,
  decision text NOT NULL,
  note text,
  decided_at bigint NOT NULL,
  reviewer text,
  CONSTRAINT reviews_pkey PRIMARY KEY (job_key, idx),
  CONSTRAINT reviews_job_key_fkey FOREIGN KEY (job_key) REFERENCES jobs(key),
  CONSTRAINT reviews_decision_check CHECK ((decision = ANY (ARRAY['approved'::text, 'rejected'::text])))
);

CREATE TABLE run_jobs (
  run_id integer NOT NULL,
  key text NOT NULL,
  CONSTRAINT run_jobs_pkey PRIMARY KEY (run_id, key),
  CONSTRAINT run_jobs_key_fkey FOREIGN KEY (key) REFERENCES jobs(key),
  CONSTRAINT run_jobs_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id)
);
CREATE INDEX run_jobs_by_key ON public.run_jobs USING btree (key);

CREATE TABLE run_row_sources (
  run_id integer NOT NULL,
  url text NOT NULL,
  format text NOT NULL,
  sha256 text NOT NULL,
  body text NOT NULL,
  fetched_at bigint NOT NULL,
  CONSTRAINT run_row_sources_pkey PRIMARY KEY (run_id, url),
  CONSTRAINT run_row_sources_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id)
);

CREATE TABLE run_spend_bounds (
  run_id integer NOT NULL,
  bound double precision,
  unknown_cost double precision,
  CONSTRAINT run_spend_bounds_pkey PRIMARY KEY (run_id),
  CONSTRAINT run_spend_bounds_run_id_fkey FOREIGN KEY (run_id) REFERENCES runs(id) ON DELETE CASCADE
);

CREATE TABLE runs (
  id integer GENERATED BY DEFAULT AS IDENTITY NOT NULL,
  name text NOT NULL,
  manifest_path text NOT NULL,
  manifest_text text NOT NULL,
  base_url text NOT NULL,
  output_dir text NOT NULL,
  status text NOT NULL,
  exit_code integer,
  started_at bigint NOT NULL,
  finished_at bigint,
  tick bigint,
  stop_reason text,
  resolved_manifest text,
  halt text,
  queued boolean NOT NULL DEFAULT false,
  project_dir text,
  dependant_rules text,
  worked_alone boolean NOT NULL DEFAULT false,
  publish_to text,
  unknown_cost double precision,
  end_states text,
  CONSTRAINT runs_pkey PRIMARY KEY (id)
);
CREATE INDEX runs_by_tick ON public.runs USING btree (name, tick) WHERE (tick IS NOT NULL);

CREATE TABLE store_identity (
  id text NOT NULL
);

CREATE TABLE task_requests (
  key text NOT NULL,
  request text NOT NULL,
  CONSTRAINT task_requests_pkey PRIMARY KEY (key)
);

CREATE TABLE text_answers (
  job_key text NOT NULL,
  format text NOT NULL,
  model text,
  text text NOT NULL,
  choices integer NOT NULL,
  finish_reason text,
  usage text,
  tool_calls text,
  streamed integer NOT NULL,
  answered_at bigint NOT NULL,
  refusal text,
  CONSTRAINT text_answers_pkey PRIMARY KEY (job_key),
  CONSTRAINT text_answers_job_key_fkey FOREIGN KEY (job_key) REFERENCES jobs(key)
);

CREATE TABLE ticks (
  id integer GENERATED BY DEFAULT AS IDENTITY NOT NULL,
  name text NOT NULL,
  tick bigint NOT NULL,
  status text NOT NULL,
  trigger text NOT NULL,
  run_id integer,
  exit_code integer,
  reason text,
  fired_at bigint NOT NULL,
  finished_at bigint,
  CONSTRAINT ticks_pkey PRIMARY KEY (id)
);
CREATE INDEX ticks_by_name ON public.ticks USING btree (name, tick);

CREATE TABLE view_tokens (
  name text NOT NULL,
  token_sha256 text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint,
  CONSTRAINT view_tokens_token_sha256_key UNIQUE (token_sha256),
  CONSTRAINT view_tokens_pkey PRIMARY KEY (name)
);

CREATE TABLE workers (
  id text NOT NULL,
  name text NOT NULL,
  host text NOT NULL,
  pid integer NOT NULL,
  pool_ids text[] NOT NULL DEFAULT '{}'::text[],
  started_at timestamp with time zone NOT NULL DEFAULT gwrun_now(),
  heartbeat_at timestamp with time zone NOT NULL DEFAULT gwrun_now(),
  stopped_at timestamp with time zone,
  dead_at timestamp with time zone,
  lease_ms integer,
  CONSTRAINT workers_pkey PRIMARY KEY (id)
);

-- Functions

CREATE OR REPLACE FUNCTION public.gwrun_claim_tasks(claim_keys text[], claim_run integer, claim_lanes text[], cap bigint, max_cost double precision, unknown_cost double precision, own_costs double precision[], claimer text, next_attempts integer[], claimed_at bigint)
 RETURNS TABLE(task_key text, outcome text)
 LANGUAGE plpgsql
AS $function$
DECLARE
  flying BIGINT;
  spent FLOAT8;
  -- `spent` is the run's bound (at least what it spent), not a count: it refuses nothing.
  bounded BOOLEAN := false;
  kept_unknown FLOAT8;
  -- What the tasks claimed so far reserve: not yet moved, so not in a count.
  reserving FLOAT8 := 0;
  pending_keys TEXT[];
  outcomes TEXT[] := '{}';
  taken INTEGER[] := '{}';
  i INTEGER;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run || ':' || claim_lanes[1]));
  -- Counted no further than the cap: that is all a claim needs to know.
  SELECT count(*) INTO flying FROM (
    SELECT 1 FROM jobs
     WHERE run_id = claim_run AND lane = ANY(claim_lanes)
       AND gwrun_in_flight(state)
     LIMIT cap) f;
  IF max_cost IS NOT NULL THEN
    -- Taken after the lane's lock, by every claim within a budget: no two wait on each other.
    -- Held alone, it also waits for any rise of the run's spend under way (the trigger).
    PERFORM pg_advisory_xact_lock(hashtext('gwrun:claim:' || claim_run));
    SELECT b.bound, b.unknown_cost INTO spent, kept_unknown
      FROM run_spend_bounds b WHERE b.run_id = claim_run;
    bounded := spent IS NOT NULL AND kept_unknown IS NOT DISTINCT FROM unknown_cost;
    IF NOT bounded THEN
      spent := gwrun_run_spent(claim_run, unknown_cost);
    END IF;
  ELSE
    -- Claims without a budget keep no bound: one kept before is no longer one.
    UPDATE run_spend_bounds SET bound = NULL WHERE run_id = claim_run AND bound IS NOT NULL;
  END IF;
  -- The given tasks still pending, held until this claim ends (any other is gone).
  SELECT array_agg(j.key ORDER BY j.key) INTO pending_keys
    FROM (SELECT key FROM jobs WHERE key = ANY(claim_keys) AND state = 'pending'
          ORDER BY key FOR UPDATE) j;
  FOR i IN 1 .. COALESCE(cardinality(claim_keys), 0) LOOP
    IF bounded AND (spent >= max_cost OR round((spent + own_costs[i]) * 1e6) / 1e6 > max_cost) THEN
      -- The bound would refuse: count exactly, with what this claim reserved so far.
      spent := round((gwrun_run_spent(claim_run, unknown_cost) + reserving) * 1e6) / 1e6;
      bounded := false;
    END IF;
    IF flying >= cap THEN
      outcomes[i] := 'full';
    ELSIF max_cost IS NOT NULL
          AND (spent >= max_cost OR round((spent + own_costs[i]) * 1e6) / 1e6 > max_cost) THEN
      outcomes[i] := 'budget';
    ELSIF NOT COALESCE(claim_keys[i] = ANY(pending_keys), false)
          OR claim_keys[i] = ANY(claim_keys[1:i - 1]) THEN
      -- Taken by another claim, or named twice: claimed once.
      outcomes[i] := 'gone';
    ELSE
      outcomes[i] := 'claimed';
      taken := taken || i;
      flying := flying + 1;
      spent := round((spent + own_costs[i]) * 1e6) / 1e6;
      reserving := reserving + own_costs[i];
    END IF;
  END LOOP;
  WITH moved AS (
    UPDATE jobs j SET state = 'submitting', updated_at = claimed_at, claimed_by = claimer,
      attempts = next_attempts[t.place]
    FROM unnest(taken) AS t(place)
    WHERE j.key = claim_keys[t.place] AND j.key = ANY(pending_keys)
    RETURNING t.place, j.run_id, j.key)
  INSERT INTO events (run_id, at, job_key, type, data)
  SELECT moved.run_id, claimed_at, moved.key, 'job:submitting', NULL FROM moved ORDER BY moved.place;
  IF max_cost IS NOT NULL THEN
    INSERT INTO run_spend_bounds AS b (run_id, bound, unknown_cost)
      VALUES (claim_run, spent, gwrun_claim_tasks.unknown_cost)
      ON CONFLICT (run_id) DO UPDATE SET bound = excluded.bound, unknown_cost = excluded.unknown_cost;
  END IF;
  RETURN QUERY SELECT claim_keys[n], outcomes[n]
    FROM generate_subscripts(claim_keys, 1) AS n ORDER BY n;
END
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_download_priority(task_key text)
 RETURNS integer
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN MIN(expires_at) IS NULL THEN 1440
              ELSE LEAST(1440, GREATEST(0,
                     floor((MIN(expires_at) - EXTRACT(EPOCH FROM gwrun_now()) * 1000) / 60000)))::INTEGER
         END
  FROM outputs WHERE job_key = task_key AND state = 'pending'
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_fleet_works(run integer)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  SELECT NOT COALESCE((SELECT worked_alone FROM runs WHERE id = run), false)
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_in_flight(state text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT state IN ('submitting', 'submitted', 'processing')
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_keep_checks(move_to text, moved_at bigint, move_from text[], passed text[], check_keys text[], check_idxs integer[], check_states text[], check_texts text[], check_thumbnails text[], check_posters text[])
 RETURNS TABLE(task_key text)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_mark_downloads(move_to text, moved_at bigint, move_from text[], file_keys text[], file_idxs integer[], file_paths text[], file_bytes bigint[], file_sha256s text[], file_types text[], file_times bigint[])
 RETURNS TABLE(task_key text, output_idx integer)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_now()
 RETURNS timestamp with time zone
 LANGUAGE sql
AS $function$
  SELECT clock_timestamp() + COALESCE((SELECT shift FROM gwrun_clock), '0')
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_paid(state text)
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT state IN ('completed', 'downloaded', 'done')
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queue_downloads(task_keys text[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  per_job INTEGER := GREATEST(1, LEAST(10, cardinality(task_keys) / 8));
BEGIN
  IF cardinality(task_keys) = 0 THEN
    RETURN;
  END IF;
  PERFORM graphile_worker_downloads.add_jobs(ARRAY(
    SELECT ROW('gwrun_download',
               CASE WHEN count(*) = 1 THEN json_build_object('key', min(c.key))
                    ELSE json_build_object('keys', json_agg(c.key ORDER BY c.n)) END,
               NULL, NULL, NULL,
               CASE WHEN count(*) = 1 THEN 'download:' || min(c.key) END,
               min(c.priority), gwrun_run_flags(c.run_id))::graphile_worker_downloads.job_spec
    FROM (SELECT d.*, (d.n - 1) / per_job AS chunk
            FROM (SELECT j.key, j.run_id, p.priority,
                         row_number() OVER (PARTITION BY j.run_id ORDER BY p.priority, j.key) AS n
                    FROM jobs j CROSS JOIN LATERAL (SELECT gwrun_download_priority(j.key) AS priority) p
                   WHERE j.key = ANY(task_keys) AND j.placeholder = 0
                     AND gwrun_fleet_works(gwrun_working_run(j.key, j.run_id))) d) c
    GROUP BY c.run_id, c.chunk
    ORDER BY min(c.priority)));
END
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queue_rebound()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queue_submit_jobs(run integer, task_keys text[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  per_job INTEGER := GREATEST(1, LEAST(10, cardinality(task_keys) / 64));
BEGIN
  IF cardinality(task_keys) = 0 OR NOT gwrun_fleet_works(run) THEN
    RETURN;
  END IF;
  PERFORM graphile_worker.add_jobs(ARRAY(
    SELECT ROW('gwrun_submit',
               CASE WHEN per_job = 1 THEN json_build_object('key', min(c.key))
                    ELSE json_build_object('keys', json_agg(c.key ORDER BY c.n)) END,
               NULL, NULL, NULL,
               CASE WHEN per_job = 1 THEN 'submit:' || min(c.key) END,
               NULL, gwrun_run_flags(c.run_id))::graphile_worker.job_spec
    FROM (SELECT k.key, k.n, j.run_id, (k.n - 1) / per_job AS chunk
            FROM unnest(task_keys) WITH ORDINALITY AS k(key, n) JOIN jobs j ON j.key = k.key) c
    GROUP BY c.chunk, c.run_id
    ORDER BY min(c.n)));
END
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queue_submits()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  recording INTEGER;
BEGIN
  FOR recording IN SELECT DISTINCT t.run_id FROM inserted t LOOP
    PERFORM gwrun_queue_submit_jobs(recording, ARRAY(
      SELECT t.key FROM inserted t
      WHERE t.run_id = recording AND t.state = 'pending' AND t.placeholder = 0
      ORDER BY t.place));
  END LOOP;
  RETURN NULL;
END
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queue_work()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queued_downloads()
 RETURNS SETOF text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT COALESCE(q.payload->>'key', k.key)
    FROM graphile_worker_downloads._private_jobs q
    JOIN graphile_worker_downloads._private_tasks t ON t.id = q.task_id
    LEFT JOIN LATERAL json_array_elements_text(q.payload->'keys') AS k(key) ON true
   WHERE t.identifier = 'gwrun_download'
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_queued_submits()
 RETURNS SETOF text
 LANGUAGE sql
 STABLE
AS $function$
  SELECT COALESCE(q.payload->>'key', k.key)
    FROM graphile_worker._private_jobs q
    JOIN graphile_worker._private_tasks t ON t.id = q.task_id
    LEFT JOIN LATERAL json_array_elements_text(q.payload->'keys') AS k(key) ON true
   WHERE t.identifier LIKE 'gwrun_submit%'
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_record_receipts(receiver text, received_at bigint, given jsonb, given_keys text[], given_task_ids text[])
 RETURNS TABLE(task_key text, moved boolean, duplicate_of text)
 LANGUAGE plpgsql
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_run_flags(run integer)
 RETURNS text[]
 LANGUAGE sql
 STABLE
AS $function$
  SELECT ARRAY['run:' || run]
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_run_spent(run integer, unknown double precision)
 RETURNS double precision
 LANGUAGE sql
 STABLE
 SET enable_seqscan TO 'off'
AS $function$
  SELECT round(COALESCE(SUM(gwrun_spend_of(state, cost, estimated_cost, unknown,
                                           unknown_submits)), 0) * 1e6) / 1e6
    FROM jobs WHERE run_id = run
      AND (gwrun_paid(state) OR gwrun_in_flight(state) OR unknown_submits > 0)
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_spend_of(state text, cost double precision, estimate double precision, unknown double precision, unknown_submits integer)
 RETURNS double precision
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT CASE WHEN gwrun_paid(state) THEN COALESCE(cost, estimate, unknown, 0)
              WHEN gwrun_in_flight(state) THEN COALESCE(estimate, unknown, 0)
              ELSE 0 END
         + COALESCE(estimate, unknown, 0) * unknown_submits
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_spend_rose()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
$function$;

CREATE OR REPLACE FUNCTION public.gwrun_working_run(task_key text, recorded_by integer)
 RETURNS integer
 LANGUAGE sql
 STABLE
AS $function$
  SELECT COALESCE((SELECT max(run_id) FROM run_jobs WHERE key = task_key), recorded_by)
$function$;

-- Triggers

CREATE TRIGGER jobs_queue_submits AFTER INSERT ON jobs REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION gwrun_queue_submits();
CREATE CONSTRAINT TRIGGER jobs_queue_work_inserted AFTER INSERT ON jobs DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (new.state = ANY (ARRAY['completed'::text, 'downloaded'::text])) EXECUTE FUNCTION gwrun_queue_work();
CREATE CONSTRAINT TRIGGER jobs_queue_work_moved AFTER UPDATE ON jobs DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((new.state = ANY (ARRAY['pending'::text, 'completed'::text, 'downloaded'::text])) AND NOT (old.state = 'completed'::text AND new.state = 'downloaded'::text) AND old.state IS DISTINCT FROM new.state) EXECUTE FUNCTION gwrun_queue_work();
CREATE TRIGGER jobs_spend_inserted AFTER INSERT ON jobs FOR EACH ROW WHEN ((new.state = ANY (ARRAY['completed'::text, 'downloaded'::text, 'done'::text, 'submitting'::text, 'submitted'::text, 'processing'::text])) OR new.unknown_submits > 0) EXECUTE FUNCTION gwrun_spend_rose();
CREATE TRIGGER jobs_spend_moved AFTER UPDATE OF run_id, cost, estimated_cost, reason, unknown_submits ON jobs FOR EACH ROW WHEN (new.unknown_submits > old.unknown_submits OR new.unknown_submits > 0 AND old.run_id IS DISTINCT FROM new.run_id OR (new.state = ANY (ARRAY['completed'::text, 'downloaded'::text, 'done'::text, 'submitting'::text, 'submitted'::text, 'processing'::text])) AND (old.run_id IS DISTINCT FROM new.run_id OR old.estimated_cost IS DISTINCT FROM new.estimated_cost OR (old.state <> ALL (ARRAY['completed'::text, 'downloaded'::text, 'done'::text, 'submitting'::text, 'submitted'::text, 'processing'::text])) OR (old.state = ANY (ARRAY['submitting'::text, 'submitted'::text, 'processing'::text])) AND (new.state = ANY (ARRAY['completed'::text, 'downloaded'::text, 'done'::text])) AND new.cost IS NOT NULL AND (old.estimated_cost IS NULL OR new.cost > old.estimated_cost) OR (old.state = ANY (ARRAY['completed'::text, 'downloaded'::text, 'done'::text])) AND (old.cost IS DISTINCT FROM new.cost OR (new.state = ANY (ARRAY['submitting'::text, 'submitted'::text, 'processing'::text]))))) EXECUTE FUNCTION gwrun_spend_rose();
CREATE CONSTRAINT TRIGGER task_requests_rebound AFTER UPDATE ON task_requests DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (old.request IS DISTINCT FROM new.request) EXECUTE FUNCTION gwrun_queue_rebound();
