-- A run's tasks by state when it ended, as SQLite keeps them (sql/000022).
ALTER TABLE runs ADD COLUMN end_states text;
