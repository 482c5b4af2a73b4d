import { createHash } from "node:crypto";
import { renameSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { type Dispatcher, request } from "undici";
import { coerceError, ErrorCode, localWriteError } from "../core/errors.js";
import { type FileWrites, nodeFileWrites } from "../core/file-writes.js";
import { ensureDir, partialFile } from "../core/fs.js";
import { GatewayError } from "./errors.js";
import { gatewayText } from "./gateway-text.js";
import type { NetworkProxy } from "./proxy.js";
import { requestFailure } from "./proxy-errors.js";

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
  const what = "download";
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, { dispatcher, method: "GET", signal: options.signal });
  } catch (error) {
    throw requestFailure(error, what, url, proxy);
  }
  const { statusCode, headers, body } = response;
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
  const contentType =
    String(headers["content-type"] ?? "")
      .split(";")[0]
      ?.trim()
      .toLowerCase() ?? "";
  const expectedType =
    options.kind === undefined ? /^(image|video)\// : new RegExp(`^${options.kind}/`);
  if (!expectedType.test(contentType)) {
    body.destroy();
    throw invalid(
      `${what}: expected ${options.kind ?? "an image or video"} but the server sent ${contentType === "" ? "no Content-Type" : `"${contentType}"`}`,
      false,
    );
  }
  const announced =
    headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
  if (announced !== undefined && announced > options.maxBytes) {
    body.destroy();
    throw invalid(
      `${what}: the file is ${announced} bytes, over the ${options.maxBytes}-byte cap`,
      false,
    );
  }
  let dest: string;
  try {
    dest = typeof destination === "string" ? destination : await destination(contentType);
  } catch (error) {
    body.destroy();
    throw error;
  }
  const tempDir = options.tempDir ?? path.dirname(dest);
  for (const dir of [path.dirname(dest), tempDir]) {
    try {
      await ensureDir(dir);
    } catch (error) {
      body.destroy();
      throw localWriteError(error, dir) ?? error;
    }
  }
  const partial = partialFile(tempDir, dest);
  const files = options.files ?? nodeFileWrites;
  const hash = createHash("sha256");
  let bytes = 0;
  const count = (chunk: Buffer): void => {
    bytes += chunk.length;
    if (bytes > options.maxBytes)
      throw invalid(`${what}: the file exceeds the ${options.maxBytes}-byte cap`, false);
    hash.update(chunk);
  };
  try {
    if (announced !== undefined && announced <= SMALL_FILE) {
      // A small file is gathered in memory and written at once, by the file-writing thread:
      // cheaper than a stream's round trips through the thread pool (and a pipeline's own
      // abort controller), which thousands of pictures would pay each.
      const chunks: Buffer[] = [];
      try {
        for await (const chunk of body as AsyncIterable<Buffer>) {
          count(chunk);
          chunks.push(chunk);
        }
      } finally {
        // Left early (the cap): the rest of the body is not wanted.
        body.destroy();
      }
      if (bytes !== announced) throw truncated(bytes, announced);
      await files.whole(partial, dest, Buffer.concat(chunks));
    } else {
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          try {
            count(chunk);
            callback(null, chunk);
          } catch (error) {
            callback(coerceError(error));
          }
        },
      });
      await pipeline(body, meter, files.stream(partial));
      if (announced !== undefined && bytes !== announced) throw truncated(bytes, announced);
      renameSync(partial, dest);
    }
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof GatewayError) throw error;
    // The file could not be written: the download was fine, this machine is not.
    const local = localWriteError(error, dest);
    if (local !== undefined) throw local;
    // The connection dropped mid-body: the announced length was not delivered.
    throw invalid(
      `${what}: truncated, got ${bytes} of ${announced ?? "?"} bytes (${(error as { code?: string }).code ?? coerceError(error).message})`,
      true,
    );
  }
  return { path: dest, bytes, sha256: hash.digest("hex"), contentType };
}
