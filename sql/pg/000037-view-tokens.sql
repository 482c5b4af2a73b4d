-- The reviewers a shared `gwrun view --share` lets in, as SQLite keeps them (sql/000020): a
-- token is kept only as its sha256. Times: ms since the epoch.
CREATE TABLE view_tokens (
  name TEXT PRIMARY KEY,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT
);
