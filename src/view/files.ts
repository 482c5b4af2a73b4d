import type { FileHandle } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pipeline } from "node:stream";
import { openGated, recordedFileRefusal, recordedFiles } from "../core/file-gate.js";
import type { Store } from "../store/index.js";
import { contentPolicy } from "./headers.js";

/**
 * Recorded files, and only those: a file is asked for by its output's id (task key and index)
 * and which of its files (the output, its thumbnail, its poster); its path comes from the
 * store, never from the URL: where it was downloaded, else a copy delivered into another
 * output folder when that one is gone. Only a regular file inside the folders allowed (the
 * project's, the runs' output folders) is served: a link placed there is not followed.
 * An output's renditions are served by name as its sidecar lists them (rendition-files.ts).
 */

export type FileKind = "file" | "thumb" | "poster";

const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** Media types by file extension, for review images and objects read back from storage. */
export const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  webp: "image/webp",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  png: "image/png",
  avif: "image/avif",
  gif: "image/gif",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  txt: "text/plain",
};

/** The recorded path and type of an output's file; undefined when none may be served. */
export async function recordedFile(
  store: Store,
  key: string,
  index: string,
  kind: FileKind,
  roots: readonly string[],
): Promise<RecordedFile | undefined> {
  if (!KEY.test(key) || !/^\d{1,6}$/.test(index)) return undefined;
  const output = (await store.outputsOf(key)).find((row) => row.idx === Number(index));
  if (output === undefined || output.state !== "downloaded") return undefined;
  const copies = (await store.copiesOf(key)).filter((copy) => copy.idx === output.idx);
  const places = [output, ...copies].map((place) =>
    kind === "file" ? place.path : kind === "thumb" ? place.thumbnail : place.poster,
  );
  const file = places.find(
    (place) => place !== null && recordedFileRefusal(place, roots) === undefined,
  );
  if (file === undefined || file === null) return undefined;
  const type = kind === "file" ? servedType(output.content_type) : typeByExtension(file);
  return { path: file, type, roots };
}

/** A file's media type by its extension; bytes when the extension is none of those known. */
export function typeByExtension(file: string): string {
  return (
    TYPES_BY_EXTENSION[file.split(".").at(-1)?.toLowerCase() ?? ""] ?? "application/octet-stream"
  );
}

/** A file the store records, with its type and the folders it may be served from. */
export interface RecordedFile {
  path: string;
  type: string;
  roots: readonly string[];
}

/** Whether a downloaded output is recorded under this key and index (its file anywhere). */
export async function recordedOutput(store: Store, key: string, index: number): Promise<boolean> {
  if (!KEY.test(key) || !Number.isInteger(index)) return false;
  return (await store.outputsOf(key)).some(
    (row) => row.idx === index && row.state === "downloaded",
  );
}

/** Media and plain text keep the type the gateway gave them; anything else (HTML…) is bytes. */
const SERVED_TYPE =
  /^(image\/(png|jpeg|webp|gif|avif)|video\/(mp4|webm|quicktime)|text\/plain|application\/json)$/;

function servedType(contentType: string | null): string {
  const type = contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
  return SERVED_TYPE.test(type) ? type : "application/octet-stream";
}

/**
 * Sends a file whole or the byte range asked for (video seeks), opened through the file gate
 * of its folders; false when it is gone, or is no longer the file recorded (a link now).
 */
export async function sendFile(
  request: IncomingMessage,
  response: ServerResponse,
  file: RecordedFile,
): Promise<boolean> {
  const opened = await openGated(recordedFiles(file.roots), file.path);
  if ("problem" in opened) return false;
  const { handle, size } = opened;
  const headers = {
    "content-type": file.type,
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=60",
    "x-content-type-options": "nosniff",
    // A gateway's file is data: opened on its own, it runs nothing on the viewer's origin.
    "content-security-policy": contentPolicy(
      "default-src 'none'; img-src 'self'; media-src 'self'; sandbox",
    ),
  };
  const range = /^bytes=(\d*)-(\d*)$/.exec(request.headers.range ?? "");
  if (range !== null && size > 0) {
    const start = range[1] === "" ? Math.max(0, size - Number(range[2])) : Number(range[1]);
    const end =
      range[1] === "" || range[2] === "" ? size - 1 : Math.min(Number(range[2]), size - 1);
    if (start > end || start >= size) {
      await handle.close();
      response.writeHead(416, { "content-range": `bytes */${size}` }).end();
      return true;
    }
    response.writeHead(206, {
      ...headers,
      "content-length": end - start + 1,
      "content-range": `bytes ${start}-${end}/${size}`,
    });
    streamTo(response, handle, { start, end });
    return true;
  }
  response.writeHead(200, { ...headers, "content-length": size });
  if (request.method === "HEAD") {
    await handle.close();
    response.end();
  } else streamTo(response, handle, {});
  return true;
}

function streamTo(
  response: ServerResponse,
  handle: FileHandle,
  range: { start?: number; end?: number },
): void {
  // A file removed while sent cuts the response; a page that stops reading (a clip's range
  // abandoned) closes the file. Either way the server goes on.
  pipeline(handle.createReadStream(range), response, () => {});
}
