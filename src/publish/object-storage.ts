import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { commandIo } from "../core/io.js";
import { secretsOf } from "../core/secret-registry.js";
import { terminalText } from "../core/text-filter.js";
import { timeoutsOf } from "../core/timeouts.js";
import type { PublishTarget } from "../manifest/index.js";

/**
 * Object storage through the AWS SDK, configured only from its own sources: credentials
 * (`AWS_ACCESS_KEY_ID`…, `AWS_PROFILE`), region (`AWS_REGION`) and endpoint
 * (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`), so S3, R2, GCS and MinIO all work. Nothing of
 * them is ever written down: errors are masked of every credential the environment holds.
 */

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
  /**
   * Aborted when requests must stop: the run was interrupted, or its end ran out of time
   * (see `withinEnd`); undefined while they may go on.
   */
  signal?: AbortSignal;
  /** Set once a request went unanswered within the policy's time: later ones fail at once. */
  stalled?: string;
  /** Hears a pause while uploads are tried again, once a spell of failures (none: unheard). */
  readonly tell?: (line: string) => void;
  /** Uploads are failing and being tried again; cleared by the next that goes through. */
  retrying?: boolean;
}

/**
 * Makes a request (`send`, given the storage's signal) unless the storage stalled: one that
 * once let a request time out is not asked again in this run, so a storage that stops
 * answering costs one timeout, not one a request.
 */
export async function requestOf<T>(
  storage: ObjectStorage,
  send: (options: { abortSignal?: AbortSignal }) => Promise<T>,
): Promise<T> {
  if (storage.stalled !== undefined) throw new Error(storage.stalled);
  try {
    return await send({ abortSignal: storage.signal });
  } catch (error) {
    noteStall(storage, error);
    throw error;
  }
}

/** Marks the storage stalled when `error` is a request that went unanswered. */
export function noteStall(storage: ObjectStorage, error: unknown): void {
  const name = (error as { name?: unknown } | null)?.name;
  const code = (error as { code?: unknown } | null)?.code;
  if (storage.signal?.aborted === true || name === "AbortError")
    storage.stalled ??= "publishing stopped (the run was interrupted, or its end ran out of time)";
  else if (name === "TimeoutError" || code === "ETIMEDOUT")
    storage.stalled ??= `object storage did not answer within ${timeoutsOf(storage.env).storage.answerMs / 1000}s`;
}

/**
 * Lets the end of a run publish for at most the policy's time (and not past `interrupt`):
 * every request after that is abandoned, and what is missing is told.
 */
export function withinEnd(storage: ObjectStorage, interrupt?: AbortSignal): void {
  const deadline = AbortSignal.timeout(timeoutsOf(storage.env).storage.runEndMs);
  storage.signal = interrupt === undefined ? deadline : AbortSignal.any([deadline, interrupt]);
}

export function openObjectStorage(
  env: Readonly<Record<string, string | undefined>> = commandIo().env,
  tell?: (line: string) => void,
): ObjectStorage {
  // The pinned SDK works on every Node gwrun supports; its note about later versions is not
  // the user's business in a run's output.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  const timeouts = timeoutsOf(env).storage;
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
    // No request waits on a storage that stopped answering longer than the policy says.
    requestHandler: {
      connectionTimeout: timeouts.connectMs,
      requestTimeout: timeouts.answerMs,
      throwOnRequestTimeout: true,
    },
  });
  return { client, env, ...(tell === undefined ? {} : { tell }) };
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

/**
 * What went wrong with `what`, in words that hold no credential (the secret registry's) and
 * that a terminal shows as text (the text filter's): a storage's own message is data.
 */
export function storageProblem(storage: ObjectStorage, what: string, error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata
    ?.httpStatusCode;
  const message = error instanceof Error ? error.message : String(error);
  const label = typeof name === "string" && name !== "Error" ? `${name}: ` : "";
  const code = status === undefined ? "" : ` (HTTP ${status})`;
  return terminalText(secretsOf(storage.env).mask(`${what}: ${label}${message}${code}`));
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
      await requestOf(storage, (options) =>
        storage.client.send(
          new ListObjectsV2Command({ Bucket: target.bucket, MaxKeys: 1 }),
          options,
        ),
      );
    } catch (error) {
      throw new Error(
        `${storageProblem(storage, target.url, error)}; check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE), AWS_REGION and AWS_ENDPOINT_URL_S3, and that they may list and write the bucket`,
      );
    }
  }
}
