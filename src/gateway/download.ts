import { createHash, type Hash } from "node:crypto";
import { renameSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Dispatcher } from "undici";
import { coerceError, ErrorCode, localWriteError } from "../core/errors.js";
import { type FileWrites, nodeFileWrites } from "../core/file-writes.js";
import { ensureDir, partialFile } from "../core/fs.js";
import { GatewayError } from "./errors.js";
import { gatewayText } from "./gateway-text.js";
import type { NetworkProxy } from "./proxy.js";
import { requestFailure } from "./proxy-errors.js";
import { undici } from "./undici.js";

export interface DownloadOptions {
  /** Refuse files larger than this many bytes. */
  maxBytes: number;
  /** The kind of file expected: its Content-Type must be `image/*` or `video/*`. */
  kind?: "image" | "video";
  /** Where the partial file is written (same file system as `dest`); default: beside it. */
  tempDir?: string;
  signal?: AbortSignal;
  /** Where the file's bytes are written (default: this machine's file systems). */
  files?: FileWrites;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  sha256: string;
  contentType: string;
}

/** Files up to this size are written in one go rather than streamed. */
const SMALL_FILE = 1024 * 1024;

const invalid = (message: string, retryable: boolean) =>
  new GatewayError(ErrorCode.DownloadInvalid, message, { retryable });

const truncated = (bytes: number, announced: number) =>
  invalid(`download: truncated, got ${bytes} of ${announced} bytes`, true);

/** Where a download goes: a path, or a function of the served Content-Type. */
export type Destination = string | ((contentType: string) => string | Promise<string>);

/** Names the download in its error messages. */
const what = "download";

type ResponseHeaders = Dispatcher.ResponseData["headers"];
type ResponseBody = Dispatcher.ResponseData["body"];

/**
 * Downloads `url` to `destination`: streamed to a temporary file beside it, checked (status,
 * type, size cap, announced length), hashed, then renamed into place — a file at `dest` is
 * always whole. No credentials are sent: result links are public mirrored links. `proxy`: the
 * one the request goes through, named when it fails.
 */
export async function downloadFile(
  dispatcher: Dispatcher,
  url: string,
  destination: Destination,
  options: DownloadOptions,
  proxy?: NetworkProxy,
): Promise<DownloadResult> {
  const { headers, body } = await requestFile(dispatcher, url, options.signal, proxy);
  const contentType = acceptedType(headers, body, options.kind);
  const announced = announcedLength(headers, body, options.maxBytes);
  const dest = await destinationOf(destination, contentType, body);
  const tempDir = options.tempDir ?? path.dirname(dest);
  await ensureDirs([path.dirname(dest), tempDir], body);
  const partial = partialFile(tempDir, dest);
  const files = options.files ?? nodeFileWrites;
  const meter = byteMeter(options.maxBytes);
  try {
    if (announced !== undefined && announced <= SMALL_FILE) {
      await writeSmall(body, meter, announced, files, partial, dest);
    } else {
      await writeStreamed(body, meter, announced, files, partial, dest);
    }
  } catch (error) {
    await rm(partial, { force: true });
    throw writeFailure(error, dest, meter.bytes, announced);
  }
  return { path: dest, bytes: meter.bytes, sha256: meter.hash.digest("hex"), contentType };
}

/** The response to a GET of `url`, when it is a 200; an expired link or HTTP error otherwise. */
async function requestFile(
  dispatcher: Dispatcher,
  url: string,
  signal: AbortSignal | undefined,
  proxy: NetworkProxy | undefined,
): Promise<Dispatcher.ResponseData> {
  let response: Dispatcher.ResponseData;
  try {
    const { request } = await undici();
    response = await request(url, { dispatcher, method: "GET", signal });
  } catch (error) {
    throw requestFailure(error, what, url, proxy);
  }
  const { statusCode, body } = response;
  if (statusCode !== 200) {
    const text = gatewayText(await body.text().catch(() => ""), 200);
    if (statusCode === 403 || statusCode === 404 || statusCode === 410) {
      throw new GatewayError(
        ErrorCode.LinkExpired,
        `the result link has expired or is gone (HTTP ${statusCode}${text === "" ? "" : `: ${text}`})`,
        { status: statusCode },
      );
    }
    throw new GatewayError(
      statusCode >= 500 ? ErrorCode.HttpServer : ErrorCode.HttpOther,
      `${what}: HTTP ${statusCode}`,
      { status: statusCode, retryable: statusCode >= 500 || statusCode === 429 },
    );
  }
  return response;
}

/** The served Content-Type, when it is the kind expected; the body is dropped otherwise. */
function acceptedType(
  headers: ResponseHeaders,
  body: ResponseBody,
  kind: DownloadOptions["kind"],
): string {
  const contentType =
    String(headers["content-type"] ?? "")
      .split(";")[0]
      ?.trim()
      .toLowerCase() ?? "";
  const expectedType = kind === undefined ? /^(image|video)\// : new RegExp(`^${kind}/`);
  if (!expectedType.test(contentType)) {
    body.destroy();
    throw invalid(
      `${what}: expected ${kind ?? "an image or video"} but the server sent ${contentType === "" ? "no Content-Type" : `"${contentType}"`}`,
      false,
    );
  }
  return contentType;
}

/** The announced Content-Length, if any; over the cap, the body is dropped unread. */
function announcedLength(
  headers: ResponseHeaders,
  body: ResponseBody,
  maxBytes: number,
): number | undefined {
  const announced =
    headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  if (announced !== undefined && announced > maxBytes) {
    body.destroy();
    throw invalid(`${what}: the file is ${announced} bytes, over the ${maxBytes}-byte cap`, false);
  }
  return announced;
}

/** Where the file goes; the body is dropped when that cannot be decided. */
async function destinationOf(
  destination: Destination,
  contentType: string,
  body: ResponseBody,
): Promise<string> {
  try {
    return typeof destination === "string" ? destination : await destination(contentType);
  } catch (error) {
    body.destroy();
    throw error;
  }
}

/** Makes the destination's and the partial file's folders; the body is dropped if one fails. */
async function ensureDirs(dirs: readonly string[], body: ResponseBody): Promise<void> {
  for (const dir of dirs) {
    try {
      await ensureDir(dir);
    } catch (error) {
      body.destroy();
      throw localWriteError(error, dir) ?? error;
    }
  }
}

/** Counts and hashes a body's bytes as they arrive, refusing any past the cap. */
interface ByteMeter {
  bytes: number;
  hash: Hash;
  count(chunk: Buffer): void;
}

function byteMeter(maxBytes: number): ByteMeter {
  const meter: ByteMeter = {
    bytes: 0,
    hash: createHash("sha256"),
    count(chunk) {
      meter.bytes += chunk.length;
      if (meter.bytes > maxBytes)
        throw invalid(`${what}: the file exceeds the ${maxBytes}-byte cap`, false);
      meter.hash.update(chunk);
    },
  };
  return meter;
}

/**
 * A small file is gathered in memory and written at once, by the file-writing thread:
 * cheaper than a stream's round trips through the thread pool (and a pipeline's own
 * abort controller), which thousands of pictures would pay each.
 */
async function writeSmall(
  body: ResponseBody,
  meter: ByteMeter,
  announced: number,
  files: FileWrites,
  partial: string,
  dest: string,
): Promise<void> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      meter.count(chunk);
      chunks.push(chunk);
    }
  } finally {
    // Left early (the cap): the rest of the body is not wanted.
    body.destroy();
  }
  if (meter.bytes !== announced) throw truncated(meter.bytes, announced);
  await files.whole(partial, dest, Buffer.concat(chunks));
}

/** A larger (or unannounced) file is streamed through the meter to the partial file. */
async function writeStreamed(
  body: ResponseBody,
  meter: ByteMeter,
  announced: number | undefined,
  files: FileWrites,
  partial: string,
  dest: string,
): Promise<void> {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        meter.count(chunk);
        callback(null, chunk);
      } catch (error) {
        callback(coerceError(error));
      }
    },
  });
  await pipeline(body, counter, files.stream(partial));
  if (announced !== undefined && meter.bytes !== announced) {
    throw truncated(meter.bytes, announced);
  }
  renameSync(partial, dest);
}

/** What a failed write throws, once its partial file is gone. */
function writeFailure(
  error: unknown,
  dest: string,
  bytes: number,
  announced: number | undefined,
): unknown {
  if (error instanceof GatewayError) return error;
  // The file could not be written: the download was fine, this machine is not.
  const local = localWriteError(error, dest);
  if (local !== undefined) return local;
  // The connection dropped mid-body: the announced length was not delivered.
  return invalid(
    `${what}: truncated, got ${bytes} of ${announced ?? "?"} bytes (${(error as { code?: string }).code ?? coerceError(error).message})`,
    true,
  );
}
