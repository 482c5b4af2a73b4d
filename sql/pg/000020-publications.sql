-- Objects an output was published as (`output.publish`): its file, review images and sidecar
-- under each target, each as verified after its upload (size, sha256, the storage's ETag).
CREATE TABLE publications (
  job_key TEXT NOT NULL REFERENCES jobs(key),
  idx INTEGER NOT NULL,
  target TEXT NOT NULL,          -- s3://bucket/prefix as the manifest names it
  part TEXT NOT NULL,            -- file, thumbnail, poster or sidecar
  object_key TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  sha256 TEXT NOT NULL,
  etag TEXT NOT NULL,
  published_at BIGINT NOT NULL,
  PRIMARY KEY (job_key, idx, target, part)
);
