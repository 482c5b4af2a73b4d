import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { PublishTarget } from "../manifest/index.js";
import { isRefusal, type ObjectStorage, storageProblem } from "./object-storage.js";

/** A local file to put into object storage, with what it must be once there. */
export interface ObjectToPut {
  file: string;
  /** Opens the file for one attempt (through the file gate of its folder). */
  body(): Promise<Readable>;
  key: string;
  bytes: number;
  sha256: string;
  contentType: string;
}

/** Uploads tried in all before an object is given up on; the SDK retries each request too. */
const ATTEMPTS = 3;
const FIRST_DELAY_MS = 500;

/** A failed upload, with whether trying again could mend it. */
export class UploadFailed extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

/**
 * Puts a file into the target (multipart past 5 MiB) and verifies it is there: its size, and
 * the sha256 it was sent with. Tried again with backoff, as a download is; resolves with the
 * storage's ETag.
 */
export async function putObject(
  storage: ObjectStorage,
  target: PublishTarget,
  object: ObjectToPut,
  signal?: AbortSignal,
): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await putOnce(storage, target, object, signal);
    } catch (error) {
      const refused = isRefusal(error);
      const problem = storageProblem(storage, `${target.url}: ${object.key}`, error);
      if (refused || attempt >= ATTEMPTS || signal?.aborted === true)
        throw new UploadFailed(problem, refused);
      await sleep(FIRST_DELAY_MS * 2 ** (attempt - 1), undefined, { signal }).catch(() => {});
    }
  }
}

class Mismatch extends Error {}

async function putOnce(
  storage: ObjectStorage,
  target: PublishTarget,
  object: ObjectToPut,
  signal: AbortSignal | undefined,
): Promise<string> {
  const upload = new Upload({
    client: storage.client,
    params: {
      Bucket: target.bucket,
      Key: object.key,
      Body: await object.body(),
      ContentType: object.contentType,
      Metadata: { sha256: object.sha256 },
    },
    leavePartsOnError: false,
  });
  const abort = () => void upload.abort().catch(() => {});
  signal?.addEventListener("abort", abort, { once: true });
  try {
    await upload.done();
  } finally {
    signal?.removeEventListener("abort", abort);
  }
  const head = await storage.client.send(
    new HeadObjectCommand({ Bucket: target.bucket, Key: object.key }),
  );
  if (head.ContentLength !== object.bytes || head.Metadata?.sha256 !== object.sha256)
    throw new Mismatch(
      `the object holds ${head.ContentLength ?? "?"} bytes of sha256 ${head.Metadata?.sha256 ?? "unknown"} after its upload, not the file's ${object.bytes} bytes of ${object.sha256}`,
    );
  return head.ETag ?? "";
}

/** The object's size and sha256 as stored, or undefined when it is not there. */
export async function headObject(
  storage: ObjectStorage,
  target: PublishTarget,
  key: string,
): Promise<{ bytes: number; sha256: string | undefined; etag: string } | undefined> {
  try {
    const head = await storage.client.send(
      new HeadObjectCommand({ Bucket: target.bucket, Key: key }),
    );
    return { bytes: head.ContentLength ?? 0, sha256: head.Metadata?.sha256, etag: head.ETag ?? "" };
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404) return undefined;
    throw new UploadFailed(
      storageProblem(storage, `${target.url}: ${key}`, error),
      isRefusal(error),
    );
  }
}
