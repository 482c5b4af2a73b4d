-- The reviewers a shared `gwrun view --share` lets in (`gwrun view invite NAME`): a token is
-- kept only as its sha256, so the record never holds a link that works. Times: ms since the epoch.
CREATE TABLE view_tokens (
  name TEXT PRIMARY KEY,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER
) WITHOUT ROWID;
