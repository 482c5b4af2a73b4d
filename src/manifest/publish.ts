import * as z from "zod";
import { interpolateEnv } from "./interpolate.js";
import { readYamlValue } from "./yaml-syntax.js";

/**
 * `output.publish:` where a run's outputs are delivered beyond its folder: object storage
 * addressed as `s3://bucket/prefix` (S3, R2, GCS's S3 interface, MinIO: the endpoint and
 * credentials come from the AWS SDK's own sources, never from the manifest).
 */

/** Bucket names as S3 allows them: 3–63 lowercase letters, digits, dots and hyphens. */
const S3_URL = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/;

/** One place outputs are published to. */
export interface PublishTarget {
  /** As the manifest names it, prefix without slashes at its ends: `s3://bucket/prefix`. */
  url: string;
  bucket: string;
  /** Object keys start with it (`prefix/…`); empty for the bucket's root. */
  prefix: string;
}

const target = z
  .string()
  .refine((url) => parsePublishTarget(url) !== undefined, {
    error:
      'must be an object storage target such as "s3://my-bucket/campaigns/spring" (bucket: 3–63 lowercase letters, digits, dots or hyphens)',
    params: { rule: "url" },
  })
  .describe("s3://bucket/prefix");

export const publishSchema = z
  .union([target, z.array(target).min(1)])
  .describe(
    "object storage the outputs, their review images and sidecars, results.jsonl and the gallery are uploaded to: s3://bucket/prefix, or a list (endpoint and credentials from the AWS SDK's environment)",
  );

export function parsePublishTarget(url: string): PublishTarget | undefined {
  const match = S3_URL.exec(url);
  if (match === null) return undefined;
  const bucket = match[1] as string;
  if (bucket.includes("..")) return undefined;
  const prefix = (match[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix.split("/").some((part) => part === "." || part === "..")) return undefined;
  return { url: prefix === "" ? `s3://${bucket}` : `s3://${bucket}/${prefix}`, bucket, prefix };
}

/** The targets of `output.publish` as checked by the schema (none: empty). */
export function resolvePublish(value: string | readonly string[] | undefined): PublishTarget[] {
  if (value === undefined) return [];
  const urls = typeof value === "string" ? [value] : value;
  return distinct(urls.flatMap((url) => parsePublishTarget(url) ?? []));
}

function distinct(targets: readonly PublishTarget[]): PublishTarget[] {
  return targets.filter((one, i) => targets.findIndex((other) => other.url === one.url) === i);
}

/** What `{name}`, `{date}` and `{tick}` stand for in a run's `output.dir` and publish targets. */
export interface FolderNames {
  name: string;
  date: string;
  /** Undefined for an unscheduled run: `{tick}` stays as written (validation refuses it). */
  tick: string | undefined;
}

/** `text` (an `output.dir` or a publish target) with the run's names filled in. */
export function withFolderNames(text: string, names: FolderNames): string {
  return text
    .replaceAll("{name}", names.name)
    .replaceAll("{date}", names.date)
    .replaceAll("{tick}", names.tick ?? "{tick}");
}

/** The targets a run publishes to: as written, with the run's names filled in. */
export function publishTargetsFor(
  targets: readonly PublishTarget[],
  names: FolderNames,
): PublishTarget[] {
  return distinct(
    targets.flatMap((target) => parsePublishTarget(withFolderNames(target.url, names)) ?? []),
  );
}

/**
 * The targets a recorded run publishes to (for `gwrun publish`, a fleet's worker and the
 * process that settles a run): as resolved when it began; for a run recorded before they
 * were kept, read from its manifest with this host's environment.
 */
export function publishTargetsOfRun(
  run: { publish_to: string | null; manifest_text: string; manifest_path: string },
  env: Readonly<Record<string, string | undefined>>,
): PublishTarget[] {
  if (run.publish_to === null) return publishTargetsOf(run.manifest_text, run.manifest_path, env);
  const urls: unknown = JSON.parse(run.publish_to);
  return Array.isArray(urls)
    ? urls.flatMap((url) => (typeof url === "string" ? (parsePublishTarget(url) ?? []) : []))
    : [];
}

/**
 * The targets of a manifest as a run recorded it, read with this host's environment; an
 * invalid one is left out, as the run could not have started with it.
 */
export function publishTargetsOf(
  text: string,
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): PublishTarget[] {
  let written: unknown;
  try {
    written = (readYamlValue(text, file) as { output?: { publish?: unknown } } | null)?.output
      ?.publish;
  } catch {
    return [];
  }
  const value: unknown = JSON.parse(JSON.stringify(written ?? null), (_key, item: unknown) =>
    typeof item === "string" ? interpolateEnv(item, env, []) : item,
  );
  const parsed = publishSchema.safeParse(value);
  return parsed.success ? resolvePublish(parsed.data) : [];
}
