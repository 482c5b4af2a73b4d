-- Scheduled manifests: the tick a run belongs to, every tick the schedulers saw, and leases.

-- The schedule tick (ms since the epoch) of a scheduled run; null for an unscheduled one.
ALTER TABLE runs ADD COLUMN tick INTEGER;
CREATE INDEX runs_by_tick ON runs (name, tick) WHERE tick IS NOT NULL;

-- One row per tick of a scheduled manifest, and what became of it.
CREATE TABLE ticks (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,            -- the manifest's name
  tick INTEGER NOT NULL,         -- when it was due, ms since the epoch
  status TEXT NOT NULL,          -- running | finished | interrupted | skipped | missed
  trigger TEXT NOT NULL,         -- on-time | catch-up | resumed | run (a one-shot `gwrun run`)
  run_id INTEGER,                -- the run it started
  exit_code INTEGER,             -- the run's exit code, once finished
  reason TEXT,                   -- why it was skipped or missed
  fired_at INTEGER NOT NULL,     -- when it was handled
  finished_at INTEGER
);
CREATE INDEX ticks_by_name ON ticks (name, tick);

-- Who is running a manifest now: one holder per name, renewed while its run goes on. A holder
-- that stops renewing (a crash) loses it at expires_at, or at once when its process is gone.
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,          -- host:pid:random of the holding process
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  acquired_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
