import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import type { PublishTarget } from "../manifest/index.js";
import {
  isRefusal,
  noteStall,
  type ObjectStorage,
  requestOf,
  storageProblem,
} from "./object-storage.js";

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
  const stop = signalOf(signal, storage.signal);
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (storage.stalled !== undefined) throw new Error(storage.stalled);
      const etag = await putOnce(storage, target, object, stop);
      storage.retrying = false;
      return etag;
    } catch (error) {
      noteStall(storage, error);
      const refused = isRefusal(error);
      const problem = storageProblem(storage, `${target.url}: ${object.key}`, error);
      if (refused || attempt >= ATTEMPTS || stop?.aborted === true || storage.stalled !== undefined)
        throw new UploadFailed(problem, refused);
      // A pause of seconds with nothing said looks like a hang: say it once a spell.
      if (storage.retrying !== true)
        storage.tell?.(
          `publishing: ${problem}; trying uploads again (up to ${ATTEMPTS} tries each, a pause of seconds between)`,
        );
      storage.retrying = true;
      await sleep(FIRST_DELAY_MS * 2 ** (attempt - 1), undefined, { signal: stop }).catch(() => {});
    }
  }
}

/** The caller's signal and the storage's together; undefined when neither is given. */
function signalOf(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const given = signals.filter((one): one is AbortSignal => one !== undefined);
  return given.length <= 1 ? given[0] : AbortSignal.any(given);
}

class Mismatch extends Error {}

async function putOnce(
  storage: ObjectStorage,
  target: PublishTarget,
  object: ObjectToPut,
  signal: AbortSignal | undefined,
): Promise<string> {
  const params = {
    Bucket: target.bucket,
    Key: object.key,
    ContentType: object.contentType,
    Metadata: { sha256: object.sha256 },
  };
  if (object.bytes <= PART_BYTES) {
    // One request, which an abort (Ctrl-C, the run's end) cancels where it stands.
    const body = await buffered(await object.body());
    await storage.client.send(new PutObjectCommand({ ...params, Body: body }), {
      abortSignal: signal,
    });
  } else {
    const body = await object.body();
    try {
      await putInParts(storage, { ...params, Body: body }, signal);
    } finally {
      // An upload cut short leaves its body unread: the file is closed all the same.
      body.destroy();
    }
  }
  const head = await requestOf(storage, (options) =>
    storage.client.send(new HeadObjectCommand({ Bucket: target.bucket, Key: object.key }), options),
  );
  if (head.ContentLength !== object.bytes || head.Metadata?.sha256 !== object.sha256)
    throw new Mismatch(
      `the object holds ${head.ContentLength ?? "?"} bytes of sha256 ${head.Metadata?.sha256 ?? "unknown"} after its upload, not the file's ${object.bytes} bytes of ${object.sha256}`,
    );
  return head.ETag ?? "";
}

/** Objects up to this size go up in one request; larger ones in parts of it. */
const PART_BYTES = 5 * 1024 * 1024;

async function buffered(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A clip in parts (the SDK's multipart `Upload`), given up at once when `signal` aborts. */
async function putInParts(
  storage: ObjectStorage,
  params: ConstructorParameters<typeof Upload>[0]["params"],
  signal: AbortSignal | undefined,
): Promise<void> {
  const upload = new Upload({ client: storage.client, params, leavePartsOnError: false });
  // A request the storage never answers is not waited for (its socket goes with the client).
  let abort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    abort = () => {
      void upload.abort().catch(() => {});
      reject(Object.assign(new Error("the upload was stopped"), { name: "AbortError" }));
    };
  });
  if (signal?.aborted === true) abort();
  signal?.addEventListener("abort", abort, { once: true });
  try {
    await Promise.race([upload.done(), aborted]);
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

/** The object's size and sha256 as stored, or undefined when it is not there. */
export async function headObject(
  storage: ObjectStorage,
  target: PublishTarget,
  key: string,
): Promise<{ bytes: number; sha256: string | undefined; etag: string } | undefined> {
  try {
    const head = await requestOf(storage, (options) =>
      storage.client.send(new HeadObjectCommand({ Bucket: target.bucket, Key: key }), options),
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
