import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import type { PublishTarget } from "../manifest/index.js";

/**
 * Object storage through the AWS SDK, configured only from its own sources: credentials
 * (`AWS_ACCESS_KEY_ID`…, `AWS_PROFILE`), region (`AWS_REGION`) and endpoint
 * (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`), so S3, R2, GCS and MinIO all work. Nothing of
 * them is ever written down: errors are masked of every credential the environment holds.
 */

const SECRET_VARIABLES = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"];

/** Errors that trying again cannot mend: credentials, permissions, a bucket that is not there. */
const REFUSALS = new Set([
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "AccessDenied",
  "AllAccessDisabled",
  "InvalidToken",
  "ExpiredToken",
  "CredentialsProviderError",
  "NoSuchBucket",
  "PermanentRedirect",
  "AuthorizationHeaderMalformed",
]);

export interface ObjectStorage {
  client: S3Client;
  env: Readonly<Record<string, string | undefined>>;
}

export function openObjectStorage(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ObjectStorage {
  // The pinned SDK works on every Node gwrun supports; its note about later versions is not
  // the user's business in a run's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  const client = new S3Client({
    ...(endpoint === undefined ? {} : { endpoint }),
    // A store of its own (MinIO, moto) has no regions: any name signs.
    ...(region !== undefined ? { region } : endpoint !== undefined ? { region: "us-east-1" } : {}),
    // Else the SDK's own chain: a profile, SSO, the instance's role…
    ...(accessKeyId !== undefined && secretAccessKey !== undefined
      ? {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(env.AWS_SESSION_TOKEN === undefined ? {} : { sessionToken: env.AWS_SESSION_TOKEN }),
          },
        }
      : {}),
    forcePathStyle: pathStyle(endpoint, env),
    // S3-compatible stores differ in the checksums they take; each upload is verified by gwrun.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 3,
  });
  return { client, env };
}

/** Buckets addressed in the path where virtual hosts cannot work: an IP address, localhost. */
function pathStyle(
  endpoint: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (env.AWS_S3_FORCE_PATH_STYLE?.toLowerCase() === "true") return true;
  if (endpoint === undefined || !URL.canParse(endpoint)) return false;
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || /^[\d.]+$/.test(host) || host.includes(":");
}

/** Whether an error is one trying again cannot mend. */
export function isRefusal(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata
    ?.httpStatusCode;
  return (typeof name === "string" && REFUSALS.has(name)) || status === 403 || status === 404;
}

/** What went wrong with `what`, in words that hold no credential. */
export function storageProblem(storage: ObjectStorage, what: string, error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata
    ?.httpStatusCode;
  const message = error instanceof Error ? error.message : String(error);
  const label = typeof name === "string" && name !== "Error" ? `${name}: ` : "";
  const code = status === undefined ? "" : ` (HTTP ${status})`;
  let text = `${what}: ${label}${message}${code}`;
  for (const variable of SECRET_VARIABLES) {
    const secret = storage.env[variable];
    if (secret !== undefined && secret.length >= 4) text = text.replaceAll(secret, "***");
  }
  return text;
}

/**
 * Checks that each target can be reached with the credentials at hand before anything is paid
 * for; throws with what to do.
 */
export async function checkTargets(
  storage: ObjectStorage,
  targets: readonly PublishTarget[],
): Promise<void> {
  for (const target of targets) {
    try {
      await storage.client.send(new ListObjectsV2Command({ Bucket: target.bucket, MaxKeys: 1 }));
    } catch (error) {
      throw new Error(
        `${storageProblem(storage, target.url, error)}; check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE), AWS_REGION and AWS_ENDPOINT_URL_S3, and that they may list and write the bucket`,
      );
    }
  }
}
