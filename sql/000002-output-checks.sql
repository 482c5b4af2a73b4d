-- Post-processing: each output's checks and the review images made from it.

ALTER TABLE outputs ADD COLUMN check_state TEXT;   -- ok | failed; null until checked
ALTER TABLE outputs ADD COLUMN checks TEXT;        -- JSON: problems and what was measured
ALTER TABLE outputs ADD COLUMN thumbnail TEXT;     -- path of its thumbnail, when made
ALTER TABLE outputs ADD COLUMN poster TEXT;        -- path of a clip's poster frame
