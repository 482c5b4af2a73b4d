import type { IncomingMessage, ServerResponse } from "node:http";
import type { ObjectStorage } from "../publish/index.js";
import type { PublishedPart, Store } from "../store/index.js";
import { type FileKind, TYPES_BY_EXTENSION } from "./files.js";
import { contentPolicy } from "./headers.js";

/**
 * An output whose file is not on this host (a fleet's other host made it, or the folder was
 * cleaned up) is served from the object it was published as: only an object the store
 * recorded for that output, read with the AWS SDK's own credentials.
 */

const PART_OF: Readonly<Record<FileKind, PublishedPart>> = {
  file: "file",
  thumb: "thumbnail",
  poster: "poster",
};

/** Object storage opened once, on the first file it is needed for; closed with the server. */
export interface LazyStorage {
  get(): Promise<ObjectStorage>;
  close(): Promise<void>;
}

export function lazyStorage(env: NodeJS.ProcessEnv): LazyStorage {
  let storage: Promise<ObjectStorage> | undefined;
  return {
    get: () => {
      storage ??= import("../publish/index.js").then((publish) => publish.openObjectStorage(env));
      return storage;
    },
    close: async () => {
      (await storage)?.client.destroy();
    },
  };
}

/**
 * Sends the recorded object of an output's file; false when none was published. `allowed`
 * is asked first, once an object is found: a private bucket is not every local user's.
 */
export async function sendPublished(
  request: IncomingMessage,
  response: ServerResponse,
  store: Store,
  output: { key: string; index: number; kind: FileKind },
  storage: LazyStorage,
  allowed: () => void,
): Promise<boolean> {
  const { recordedObject, objectBody } = await import("../publish/index.js");
  const found = await recordedObject(store, output.key, output.index, PART_OF[output.kind]);
  if (found === undefined) return false;
  allowed();
  const range = /^bytes=\d*-\d*$/.test(request.headers.range ?? "")
    ? request.headers.range
    : undefined;
  const got = await objectBody({ storage: await storage.get() }, found, range);
  const extension = found.row.object_key.split(".").at(-1)?.toLowerCase() ?? "";
  response.writeHead(got.contentRange === undefined ? 200 : 206, {
    "content-type": TYPES_BY_EXTENSION[extension] ?? "application/octet-stream",
    "content-length": got.bytes,
    ...(got.contentRange === undefined ? {} : { "content-range": got.contentRange }),
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=60",
    "x-content-type-options": "nosniff",
    "content-security-policy": contentPolicy(
      "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
    ),
  });
  if (request.method === "HEAD") {
    got.body.destroy();
    response.end();
  } else {
    got.body.on("error", () => response.destroy());
    got.body.pipe(response);
  }
  return true;
}
