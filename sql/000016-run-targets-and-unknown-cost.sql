-- The object storage a run publishes to, as it was resolved when the run began: the manifest's
-- `output.publish` with `{name}`, `{date}` and `{tick}` filled in (a JSON list of s3:// URLs;
-- NULL for a run that publishes nowhere, or one recorded before targets were kept). `gwrun
-- publish` and a fleet's settling send to these; a prefix belongs to one output folder.
ALTER TABLE runs ADD COLUMN publish_to TEXT;

-- `limits.unknown_cost` of the run's manifest: what `gwrun cost`, `status` and the run's summary
-- count each task of unknown price at, as `plan` and `max_cost` count it (NULL: unset).
ALTER TABLE runs ADD COLUMN unknown_cost REAL;
